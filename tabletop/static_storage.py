"""The static files storage of `make run` (DEBUG off): whitenoise's compressed manifest storage,
which also names the hashed file in each relative ``import ... from "./x.js";`` of the scene
page's ES modules (static/js/scene.js and static/js/scene/).

Without that, the modules would fetch the unhashed copies, cached for a minute only, so a page
could meet a new entry with an old module. Django's own switch for it
(``support_js_module_import_aggregation``) rewrites every ``*.js`` collected, and stops
collectstatic on a third-party file whose import it cannot resolve (django-htmx's
``ext/hx-sse-2.js`` imports a bare ``../htmx``): so its patterns apply to our modules only.
The modules import one another without a cycle, since a file's hash includes the hashed names
it imports (tests/tabletop/project/test_static_files.py collects them and checks both).
"""

from django.contrib.staticfiles.storage import HashedFilesMixin
from whitenoise.storage import CompressedManifestStaticFilesStorage

#: The scene page's modules: js/scene.js and everything under js/scene/ (fnmatch's * spans "/").
SCENE_MODULES = "js/scene*.js"


class HashedStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Compressed, hashed static files whose scene modules import the hashed files."""

    patterns = (
        *CompressedManifestStaticFilesStorage.patterns,
        (SCENE_MODULES, HashedFilesMixin._js_module_import_aggregation_patterns[1]),
    )
