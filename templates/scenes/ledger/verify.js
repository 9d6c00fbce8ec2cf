// The session ledger's verifier, for a browser with no server (the HTML export carries it
// inline) and for node (the tests compare it with tabletop/scenes/ledger.py and ledger_text.py).
// It makes the same checks in the same order with the same words as ledger.verify, and draws each
// entry's text as ledger_text.entry_view does to check what the page shows. It holds no Django
// template syntax: the export includes it as it is.
(function (root) {
  "use strict";

  var GENESIS = "0000000000000000000000000000000000000000000000000000000000000000";
  var MAX_SAFE = 9007199254740991;
  var REQUIRED = ["seq", "kind", "time", "actor", "audience", "public", "prev", "hash"];
  var HEX64 = /^[0-9a-f]{64}$/;

  // Python's float repr: the shortest digits that read back the same (String() gives them),
  // in scientific notation when the decimal exponent is below -4 or 16 and above.
  function pythonFloat(x) {
    var sign = x < 0 ? "-" : "";
    var text = String(Math.abs(x));
    var digits, exp;
    if (text.indexOf("e") >= 0) {
      var parts = text.split("e");
      digits = parts[0].replace(".", "");
      exp = parseInt(parts[1], 10);
    } else {
      var halves = text.split(".");
      var whole = halves[0], frac = halves[1] || "";
      if (whole !== "0") {
        digits = whole + frac;
        exp = whole.length - 1;
      } else {
        var lead = frac.match(/^0*/)[0].length;
        digits = frac.slice(lead);
        exp = -lead - 1;
      }
    }
    digits = digits.replace(/0+$/, "") || "0";
    if (exp < -4 || exp >= 16) {
      var mantissa = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
      var size = Math.abs(exp);
      return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + (size < 10 ? "0" : "") + size;
    }
    if (exp < 0) { return sign + "0." + "0".repeat(-exp - 1) + digits; }
    if (digits.length <= exp + 1) { return sign + digits + "0".repeat(exp + 1 - digits.length) + ".0"; }
    return sign + digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
  }

  function number(x) {
    if (!isFinite(x)) { throw new Error(x + " is not a JSON number"); }
    // One number type: an integral number is an int to Python too (ledger.for_javascript).
    if (Number.isInteger(x) && Math.abs(x) <= MAX_SAFE) { return String(x === 0 ? 0 : x); }
    return pythonFloat(x);
  }

  // json.dumps(ensure_ascii=False) escapes the quote, the backslash and control characters.
  var SHORT = { 0x22: '\\"', 0x5c: "\\\\", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t", 0x08: "\\b", 0x0c: "\\f" };
  function string(s) {
    var out = '"';
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (SHORT[c]) { out += SHORT[c]; }
      else if (c < 0x20) { out += "\\u" + ("000" + c.toString(16)).slice(-4); }
      else { out += s[i]; }
    }
    return out + '"';
  }

  // Python sorts keys by code point; JavaScript's sort compares UTF-16 units.
  function byCodePoint(a, b) {
    var i = 0, j = 0;
    while (i < a.length && j < b.length) {
      var ca = a.codePointAt(i), cb = b.codePointAt(j);
      if (ca !== cb) { return ca - cb; }
      i += ca > 0xffff ? 2 : 1;
      j += cb > 0xffff ? 2 : 1;
    }
    return (a.length - i) - (b.length - j);
  }

  function canonicalJson(value) {
    if (value === null) { return "null"; }
    if (value === true) { return "true"; }
    if (value === false) { return "false"; }
    if (typeof value === "number") { return number(value); }
    if (typeof value === "string") { return string(value); }
    if (Array.isArray(value)) { return "[" + value.map(canonicalJson).join(",") + "]"; }
    if (typeof value === "object") {
      return "{" + Object.keys(value).sort(byCodePoint).map(function (key) {
        return string(key) + ":" + canonicalJson(value[key]);
      }).join(",") + "}";
    }
    throw new Error("a " + typeof value + " is not JSON");
  }

  // TextEncoder would turn a lone surrogate into U+FFFD; Python refuses to encode it.
  var LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(^|[^\ud800-\udbff])[\udc00-\udfff]/;
  function utf8(text) {
    if (LONE.test(text)) { throw new Error("it holds text that is not valid Unicode"); }
    return new TextEncoder().encode(text);
  }

  function sha256(text) {
    var subtle = root.crypto && root.crypto.subtle;
    if (!subtle) { return Promise.reject(new Error("this browser has no SubtleCrypto")); }
    return subtle.digest("SHA-256", utf8(text)).then(function (digest) {
      return Array.from(new Uint8Array(digest)).map(function (b) {
        return ("0" + b.toString(16)).slice(-2);
      }).join("");
    });
  }

  function entryHash(entry) {
    var body = {};
    Object.keys(entry).forEach(function (key) { if (key !== "hash") { body[key] = entry[key]; } });
    var prev = typeof entry.prev === "string" ? entry.prev : canonicalJson(entry.prev);
    return sha256(prev + canonicalJson(body));
  }

  function isSeq(value) { return typeof value === "number" && Number.isInteger(value); }
  function isHex64(value) { return typeof value === "string" && HEX64.test(value); }
  function has(object, key) { return Object.prototype.hasOwnProperty.call(object, key); }

  function nameOf(index, entry) {
    var seq = entry && typeof entry === "object" && !Array.isArray(entry) ? entry.seq : null;
    return isSeq(seq) ? "entry " + index + " (seq " + seq + ")" : "entry " + index;
  }

  async function openingProblem(entry, seq, commitments) {
    var opening = entry.opening;
    if (!opening || typeof opening !== "object" || Array.isArray(opening) || !isSeq(opening.seq) ||
        typeof opening.nonce !== "string" || has(opening, "secret") === has(opening, "text") ||
        (has(opening, "text") && typeof opening.text !== "string")) {
      return "has an opening that is not {seq, nonce and secret or text}.";
    }
    var opened = opening.seq;
    var commitment = commitments.get(opened);
    if ((isSeq(seq) && opened >= seq) || commitment === undefined) {
      return "opens seq " + opened + ", which is not an earlier entry with a commitment.";
    }
    var digest;
    try {
      var text = has(opening, "text") ? opening.text : canonicalJson(opening.secret);
      digest = await sha256(text + ":" + opening.nonce);
    } catch (error) {
      return "has an opening that can't be hashed: " + error.message + ".";
    }
    if (digest !== commitment) {
      return "fails its commitment: the opening of seq " + opened + " does not hash to it.";
    }
    return "";
  }

  async function entryProblems(index, name, entry, prev, lastSeq, commitments) {
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) { return [name + " is not an object."]; }
    var missing = REQUIRED.filter(function (key) { return !has(entry, key); });
    if (missing.length) { return [name + " lacks " + missing.join(", ") + "."]; }
    var found = [];
    if (entry.prev !== prev) {
      found.push(index === 1
        ? name + " breaks the chain: the first entry's prev must be 64 zeros."
        : name + " breaks the chain: its prev is not the hash of entry " + (index - 1) +
          " (an entry was dropped, added or moved).");
    }
    try {
      if (await entryHash(entry) !== entry.hash) {
        found.push(name + " was changed: its hash does not match its content.");
      }
    } catch (error) {
      found.push(name + " can't be hashed: " + error.message + ".");
    }
    var seq = entry.seq;
    if (!isSeq(seq)) { found.push(name + " has no whole-number seq."); }
    else if (lastSeq !== null && seq <= lastSeq) {
      found.push(name + " is out of order: seq " + seq + " comes after seq " + lastSeq + ".");
    }
    if (has(entry, "commitment") && !isHex64(entry.commitment)) {
      found.push(name + " has a commitment that is not 64 hex digits.");
    }
    if (has(entry, "opening")) {
      var message = await openingProblem(entry, seq, commitments);
      if (message) { found.push(name + " " + message); }
    }
    return found;
  }

  // {ok, entries, head, problems: [{index, seq, message}]}; index null: the whole file.
  async function verifyLedger(doc) {
    if (!doc || typeof doc !== "object" || !Array.isArray(doc.entries)) {
      throw new Error('Not a session ledger: expected an object with an "entries" list.');
    }
    var problems = [], prev = GENESIS, lastSeq = null;
    var commitments = new Map();
    for (var i = 0; i < doc.entries.length; i++) {
      var index = i + 1, entry = doc.entries[i];
      var isObject = entry && typeof entry === "object" && !Array.isArray(entry);
      var seq = isObject ? entry.seq : null;
      var found = await entryProblems(index, nameOf(index, entry), entry, prev, lastSeq, commitments);
      found.forEach(function (message) {
        problems.push({ index: index, seq: seq === undefined ? null : seq, message: message });
      });
      if (isObject && isSeq(seq)) {
        if (isHex64(entry.commitment)) { commitments.set(seq, entry.commitment); }
        lastSeq = lastSeq === null ? seq : Math.max(seq, lastSeq);
      }
      // After a break, go on from this entry's own hash so later breaks are named too.
      prev = isObject ? entry.hash : "";
    }
    if (doc.head !== prev) {
      problems.push({ index: null, seq: null, message: "The head is not the last entry's hash (the end was changed)." });
    }
    return { ok: problems.length === 0, entries: doc.entries.length, head: doc.head, problems: problems };
  }

  // --- what a reader sees: ledger_text.entry_view and .shown_problems, spelled in JavaScript --
  // The page shows each entry as text drawn from its data; these rules draw it again from the data
  // just checked, so a word changed where a reader sees it is caught. Lengths and cuts count code
  // points (Array.from), as Python does.

  var HEADLINE = ["title", "summary", "text", "message", "use_text", "name"];
  var DIE_KEYS = ["sides", "rolled", "value", "kept", "exploded", "bonus", "source"];
  var TIME = /^([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}:[0-9]{2}:[0-9]{2})(\.[0-9]+)?Z$/;

  function isObject(value) { return value !== null && typeof value === "object" && !Array.isArray(value); }
  function get(object, key) { return has(object, key) ? object[key] : null; }
  function spaced(text) { return text.split("_").join(" "); }

  // HTML's whitespace made one space, none at either end (ledger_text.plain_text).
  function plainText(text) { return text.replace(/[ \t\n\r\f]+/g, " ").replace(/^ | $/g, ""); }

  function numberWords(value) {
    if (!isFinite(value)) { return value > 0 ? "Infinity" : "-Infinity"; }
    return number(value);
  }

  function words(value) {
    if (value === null) { return "none"; }
    if (value === true) { return "yes"; }
    if (value === false) { return "no"; }
    if (typeof value === "number") { return numberWords(value); }
    if (typeof value === "string") { return value; }
    if (Array.isArray(value)) { return value.length ? value.map(part).join(", ") : "none"; }
    if (isObject(value)) {
      if (isDie(value)) { return die(value); }
      return [headline(value), facts(value)].filter(Boolean).join("; ") || "none";
    }
    throw new Error("a " + typeof value + " is not JSON");
  }

  function part(value) {
    var text = words(value);
    var nested = Array.isArray(value) ? value.length > 0
      : isObject(value) && !isDie(value) && Object.keys(value).length > 0;
    return nested ? "(" + text + ")" : text;
  }

  function inHeadline(object, key) {
    return HEADLINE.indexOf(key) >= 0 && typeof object[key] === "string" && object[key] !== "";
  }

  function headline(object) {
    return HEADLINE.filter(function (key) { return has(object, key) && inHeadline(object, key); })
      .map(function (key) { return object[key]; }).join(": ");
  }

  function facts(object) {
    return Object.keys(object).sort(byCodePoint).filter(function (key) {
      var value = object[key];
      return value !== "" && !(HEADLINE.indexOf(key) >= 0 && typeof value === "string");
    }).map(function (key) {
      var value = object[key];
      return spaced(key) + ": " + (Array.isArray(value) ? words(value) : part(value));
    }).join("; ");
  }

  function isDie(object) {
    return typeof get(object, "sides") === "number" && typeof get(object, "value") === "number" &&
      Object.keys(object).every(function (key) { return DIE_KEYS.indexOf(key) >= 0; });
  }

  function die(object) {
    var notes = [];
    if (get(object, "kept") === false) { notes.push("dropped"); }
    if (get(object, "exploded") === true) { notes.push("exploded"); }
    if (has(object, "rolled") && words(object.rolled) !== words(object.value)) {
      notes.push("rolled " + part(object.rolled));
    }
    if (get(object, "bonus") !== null && words(object.bonus) !== "0") { notes.push("bonus " + part(object.bonus)); }
    if (get(object, "source") !== null) { notes.push("from " + part(object.source)); }
    var text = "d" + words(object.sides) + " " + words(object.value);
    return notes.length ? text + " (" + notes.join(", ") + ")" : text;
  }

  function timeWords(value) {
    var found = typeof value === "string" ? TIME.exec(value) : null;
    return found ? found[1] + " " + found[2] + " UTC" : words(value);
  }

  // An opening's committed text read back, or the text itself when it is no JSON this reads.
  function readJson(text) {
    if (typeof text !== "string") { return text; }
    try {
      var value = JSON.parse(text);
      canonicalJson(value);  // throws for what Python's for_javascript refuses (1e400)
      return value;
    } catch (error) {
      return text;
    }
  }

  function codePoints(text) { return Array.from(text); }

  // The text a reader sees for the index-th entry (1 = first), part by part (ledger_text.entry_view).
  function entryView(index, entry) {
    if (!isObject(entry)) { return { n: "#" + index, what: words(entry) }; }
    var pub = get(entry, "public");
    var opening = "";
    if (has(entry, "opening")) {
      var opened = entry.opening;
      if (isObject(opened)) {
        var secret = has(opened, "secret") ? opened.secret : readJson(get(opened, "text"));
        opening = "reveals seq " + words(get(opened, "seq")) + ": " + words(secret) +
          " (nonce " + words(get(opened, "nonce")) + ")";
      } else {
        opening = "reveals " + words(opened);
      }
    }
    var audience = get(entry, "audience");
    return {
      n: "#" + index,
      seq: "seq " + words(get(entry, "seq")),
      when: timeWords(get(entry, "time")),
      who: get(entry, "actor") === null ? "—" : words(entry.actor),
      what: spaced(words(get(entry, "kind"))) + (audience === "everyone" ? "" : " (" + words(audience) + ")"),
      headline: isObject(pub) ? headline(pub) : "",
      facts: isObject(pub) ? facts(pub) : words(pub),
      opening: opening,
      commitment: has(entry, "commitment") ? "hidden until revealed: commitment " + words(entry.commitment) : "",
      hash: "hash " + words(get(entry, "hash")),
      prev: "after " + codePoints(words(get(entry, "prev"))).slice(0, 16).join("") + "…"
    };
  }

  function entryText(index, entry) {
    var view = entryView(index, entry);
    return plainText(Object.keys(view).map(function (key) { return view[key]; }).join(" "));
  }

  function excerpt(chars, start, stop) {
    var low = Math.max(0, start - 16), high = Math.min(chars.length, stop + 16);
    if (high - low > 120) { high = low + 120; }
    return (low ? "…" : "") + chars.slice(low, high).join("") + (high < chars.length ? "…" : "");
  }

  function differ(shown, expected) {
    var a = codePoints(shown), b = codePoints(expected);
    var start = 0, end = 0;
    while (start < Math.min(a.length, b.length) && a[start] === b[start]) { start++; }
    while (end < Math.min(a.length, b.length) - start && a[a.length - 1 - end] === b[b.length - 1 - end]) { end++; }
    return [excerpt(a, start, a.length - end), excerpt(b, start, b.length - end)];
  }

  function cut(text) {
    var chars = codePoints(text);
    return chars.length <= 60 ? text : chars.slice(0, 60).join("") + "…";
  }

  // shown: {head: text or null, rows: [text of each entry in page order] or null, stray: text in
  // the chain outside any entry}. The problems, in ledger_text.shown_problems's order and words.
  function shownProblems(doc, shown) {
    var entries = isObject(doc) && Array.isArray(doc.entries) ? doc.entries : [];
    var problems = [];
    function add(index, seq, message) {
      problems.push({ index: index, seq: seq === undefined ? null : seq, message: message });
    }
    if (shown.rows === null) {
      add(null, null, 'The page does not show the chain: it has no element with id "ledger-entries".');
    } else {
      entries.forEach(function (entry, i) {
        var index = i + 1, name = nameOf(index, entry);
        var seq = isObject(entry) ? get(entry, "seq") : null;
        if (index > shown.rows.length) {
          add(index, seq, name + " is not shown on the page.");
          return;
        }
        var page = plainText(shown.rows[i]), data = entryText(index, entry);
        if (page !== data) {
          var parts = differ(page, data);
          add(index, seq, name + " is shown otherwise than its data: the page reads \u201c" + parts[0] +
            "\u201d where its data reads \u201c" + parts[1] + "\u201d.");
        }
      });
      var more = shown.rows.length - entries.length;
      if (more > 0) {
        add(null, null, "The page shows " + more + " more " + (more === 1 ? "entry" : "entries") +
          " than the ledger holds.");
      }
      var stray = plainText(shown.stray);
      if (stray) {
        add(null, null, "The chain on the page shows text that is in no entry: \u201c" + cut(stray) + "\u201d.");
      }
    }
    if (shown.head === null) {
      add(null, null, 'The page does not show the head: it has no element with id "head".');
    } else if (plainText(shown.head) !== plainText(words(isObject(doc) ? get(doc, "head") : null))) {
      add(null, null, "The head shown on the page is not the ledger's head.");
    }
    return problems;
  }

  var api = {
    GENESIS: GENESIS, canonicalJson: canonicalJson, verifyLedger: verifyLedger,
    entryView: entryView, entryText: entryText, plainText: plainText, shownProblems: shownProblems
  };
  if (typeof module === "object" && module.exports) { module.exports = api; }
  else { root.TabletopLedger = api; }
})(typeof window !== "undefined" ? window : globalThis);
