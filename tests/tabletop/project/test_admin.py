"""Every model of our apps has a Django admin page that loads."""

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

OUR_APPS = {"campaigns", "characters", "scenes", "operating"}


def our_models():
    return [m for m in apps.get_models() if m._meta.app_label in OUR_APPS]


def test_every_model_is_registered():
    missing = [m.__name__ for m in our_models() if not admin.site.is_registered(m)]
    assert missing == []


@pytest.mark.django_db
def test_admin_changelists_load(admin_client):
    for model in our_models():
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert admin_client.get(url).status_code == 200, url
