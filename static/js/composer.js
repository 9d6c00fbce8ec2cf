// The composer's line, read into the frame it sends: chat, /me, /w, /r /pr /gmr /br /sr, /help,
// and who says it: /as NAME and /emas NAME (a line, an emote, as one of your characters, or the
// GM's NPC: "as" in the frame), /ooc (out of character) and /desc (the GM's narration: "voice").
// Lines with neither go as the page's "Speaking as" picks (scene/speaking.js adds it).
// /r rolls in the mode picked under the box ("Rolls", as Foundry's /r follows its roll mode);
// /pr /gmr /br /sr force theirs.
// A saved roll's name (/r longsword) and inline rolls ([[1d20+5]]) go as typed: the server reads
// them, with the dice language's own messages.
// `parse` needs no socket, and no page when ctx gives the limit, so it is tested on its own
// (tests/tabletop/scenes/test_composer_parser.py runs it under Node). Anything it cannot read
// comes back as an error for the composer to show, and nothing is sent (the text stays).
// The one page fact it may read: the longest line the server takes, which the composer's
// textarea carries as data-limit (rendered from tabletop.scenes.actions.talk.CHAT_LIMIT), when
// the caller's ctx does not give it. The textarea has no maxlength: that cut a long paste
// silently, so this parser's message, with the length and the limit, never showed.
(function (root, factory) {
  "use strict";
  var api = factory();
  if (typeof module === "object" && module.exports) { module.exports = api; }
  else { root.TabletopComposer = api; }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var EXPRESSION_LIMIT = 200;  // the dice box's field

  // Slash command -> roll mode (tabletop/scenes/modes.py). Foundry's words, and Roll20's.
  // null: the mode picked under the box (ctx.mode, else the page's #table-mode).
  var ROLLS = {
    r: null, roll: null,
    pr: "public", publicroll: "public",
    gmr: "gm", gmroll: "gm",
    br: "blind", broll: "blind", blindroll: "blind",
    sr: "self", sroll: "self", selfroll: "self"
  };
  var WHISPER = { w: true, whisper: true, msg: true };

  var HELP = [
    "Type to talk to the table. *italic* and **bold** work.",
    "/me waves: say what your character does.",
    "Speaking as (beside the box): you, or one of your characters; the GM also any NPC's name. Your lines, emotes and rolls go out under it, your own name small beside it.",
    "/as NAME text: one line as one of your characters (the GM: any NPC); /emas NAME text: an emote as them. A character's name needs no quotes (/as Mira Vex hello); quote any other name with spaces: /as \"Old Sailor\" ahoy.",
    "/ooc text: a line out of character, in your own name, marked OOC.",
    "/desc text: the GM's narration, shown with no speaker's name (the GM's alone).",
    "/w NAME text: whisper to one member; /w NAME,NAME text to several; /w gm text to the GM.",
    "  A name is a member's name or one of their characters'; quote names with spaces: /w \"Mira Vex\" hi.",
    "/r 2d6+1: roll in the mode picked under the box (Rolls). /pr: in the open, whatever is picked. /gmr: private to the GM. /br: blind (only the GM sees it). /sr: only you.",
    "/r longsword: make a saved roll by name (your character's first, then your own); save them on the character's page or the campaign's.",
    "[[1d20+5]] anywhere in a line, an emote or a whisper rolls there, for whoever sees the line, whatever mode is picked (at most 10 a line).",
    "Dice speak Roll20, Foundry and Avrae: 2d20kh, 4d6d1, 8d6>3, 4dF, 2d10x, 1d20rr1, {1d20,1d20}kh1, 1d20+5 adv, 1d8+3 [fire], 1d20+5 >= 15.",
    "//text sends a line that starts with a slash.",
    "/help: this list."
  ];

  function error(message) { return { error: message }; }

  // The longest line the server takes: ctx.limit, else the page's #composer-text[data-limit];
  // null when neither says (then the server alone refuses, with the same words).
  function limitOf(ctx) {
    var given = ctx.limit;
    if (given == null && typeof document !== "undefined" && document.getElementById) {
      var box = document.getElementById("composer-text");
      given = box && box.getAttribute("data-limit");
    }
    var limit = typeof given === "number" ? given : parseInt(given, 10);
    return limit > 0 && limit === Math.floor(limit) ? limit : null;
  }

  // Characters as the server counts them (Python's len: code points, not UTF-16 units).
  function length(text) {
    var pairs = text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g);
    return text.length - (pairs ? pairs.length : 0);
  }

  // The mode picked under the box: ctx.mode, else the page's #table-mode; "public" only where
  // nothing is picked at all (the parser on its own).
  function pickedMode(ctx) {
    var picked = ctx.mode;
    if (!picked && typeof document !== "undefined" && document.getElementById) {
      var select = document.getElementById("table-mode");
      picked = select && select.value;
    }
    return picked ? String(picked) : "public";
  }

  function fold(text) { return String(text).trim().toLowerCase(); }

  // Read "alice,bob rest" or "\"Mira Vex\", gm rest": the names, then the rest of the line.
  function readNames(text) {
    var names = [];
    var i = 0;
    var n = text.length;
    for (;;) {
      while (i < n && text.charAt(i) === " ") { i += 1; }
      var name = "";
      if (text.charAt(i) === "\"") {
        var close = text.indexOf("\"", i + 1);
        if (close < 0) { return null; }
        name = text.slice(i + 1, close);
        i = close + 1;
      } else {
        var start = i;
        while (i < n && !/[\s,]/.test(text.charAt(i))) { i += 1; }
        name = text.slice(start, i);
      }
      if (!name.trim()) { return null; }
      names.push(name.trim());
      var j = i;
      while (j < n && text.charAt(j) === " ") { j += 1; }
      if (text.charAt(j) !== ",") { return { names: names, rest: text.slice(i) }; }
      i = j + 1;
    }
  }

  // The member a name means: a member's name, "gm", or a character's (case does not matter).
  function lookUp(name, members) {
    var wanted = fold(name);
    var found = null;
    members.forEach(function (m) {
      if (found) { return; }
      if (fold(m.name) === wanted || (wanted === "gm" && m.gm)) { found = m; }
    });
    if (found) { return found; }
    members.forEach(function (m) {
      if (found) { return; }
      (m.characters || []).forEach(function (c) { if (!found && fold(c) === wanted) { found = m; } });
    });
    return found;
  }

  function whisper(args, ctx) {
    var read = readNames(args);
    if (!read) { return error("Whisper to whom? /w NAME text (or /w NAME,NAME text)."); }
    var members = ctx.members || [];
    var to = [];
    for (var k = 0; k < read.names.length; k += 1) {
      var member = lookUp(read.names[k], members);
      if (!member) {
        var known = members.filter(function (m) { return m.id !== ctx.me; })
          .map(function (m) { return m.name; });
        return error("No one at this table is called \"" + read.names[k] + "\"." +
          (known.length ? " Whisper to: " + known.join(", ") + "." : ""));
      }
      if (member.id !== ctx.me && to.indexOf(member.id) < 0) { to.push(member.id); }
    }
    if (!to.length) { return error("Whisper to whom? Name someone other than yourself."); }
    var text = read.rest.trim();
    if (!text) { return error("What do you want to whisper? /w " + read.names.join(",") + " text"); }
    return say(text, to, ctx);
  }

  // The server caps what is said: an emote's words without "/me " (whispered or not).
  function say(text, to, ctx) {
    var limit = limitOf(ctx);
    var counted = /^\/me( |$)/i.test(text) ? text.slice(3).trim() : text;
    var size = length(counted);
    if (limit !== null && size > limit) {
      return error("A message is at most " + limit + " characters (this one has " + size +
        "): nothing was sent. Shorten it, or send it in parts.");
    }
    return { frame: { command: "chat", text: text, to: to } };
  }

  // Read "Kestrel rest" or "\"Mira Vex\" rest": one name, then the rest of the line.
  function readName(text) {
    var rest = text.replace(/^\s+/, "");
    if (rest.charAt(0) === "\"") {
      var close = rest.indexOf("\"", 1);
      if (close < 0) { return null; }
      var quoted = rest.slice(1, close).trim();
      return quoted ? { name: quoted, rest: rest.slice(close + 1) } : null;
    }
    var found = /^(\S+)([\s\S]*)$/.exec(rest);
    return found ? { name: found[1], rest: found[2] } : null;
  }

  // A known name with spaces at the start of "Mira Vex hello" (the longest, any case): the
  // table's characters and the page's Speaking-as choices (ctx.speakers: the GM's NPCs), so
  // "/as Captain Varga Halt!" speaks as Captain Varga, not as "Captain". Else null.
  function knownName(text, ctx) {
    var rest = text.replace(/^\s+/, "");
    var names = (ctx.speakers || []).slice();
    (ctx.members || []).forEach(function (m) { names = names.concat(m.characters || []); });
    var best = null;
    names.forEach(function (name) {
      name = String(name || "").trim();
      if (name.indexOf(" ") < 0 || (best && best.name.length >= name.length)) { return; }
      var head = rest.slice(0, name.length);
      var after = rest.charAt(name.length);
      if (fold(head) === fold(name) && (after === "" || /\s/.test(after))) {
        best = { name: name, rest: rest.slice(name.length) };
      }
    });
    return best;
  }

  // /as NAME text and /emas NAME text: a line (an emote) said as NAME.
  function sayAs(args, ctx, word) {
    var emote = word === "emas";
    var read = (args.replace(/^\s+/, "").charAt(0) !== "\"" && knownName(args, ctx)) || readName(args);
    var example = "/" + word + " NAME " + (emote ? "draws her sword" : "text");
    if (!read) { return error("Speak as whom? " + example + " (quote a name with spaces)."); }
    var text = read.rest.trim();
    if (!text) { return error((emote ? "What does " + read.name + " do? " : "What does " + read.name + " say? ") + example); }
    var said = say(emote ? "/me " + text : text, [], ctx);
    if (said.frame) { said.frame.as = read.name; }
    return said;
  }

  // /ooc text and /desc text: a line out of character, or the GM's narration.
  function sayIn(voice, args, ctx, word) {
    var text = args.trim();
    if (!text) { return error("Say what? /" + word + " text"); }
    var said = say(text, [], ctx);
    if (said.frame) { said.frame.voice = voice; }
    return said;
  }

  function roll(mode, args, word) {
    var expression = args.trim();
    if (!expression) { return error("Roll what? /" + word + " 2d6+1"); }
    if (expression.length > EXPRESSION_LIMIT) {
      return error("A dice expression is at most " + EXPRESSION_LIMIT + " characters.");
    }
    return { frame: { command: "roll", roll_kind: "expression", expression: expression, mode: mode } };
  }

  /**
   * Read one composer line. ctx: { members: [{id, name, gm, characters}], speakers: [names the
   * member may speak as, from the page], me: user id,
   * mode: the roll mode picked under the box, limit }. Returns { frame } to send, { help: [lines] } to show, or { error }.
   */
  function parse(line, ctx) {
    ctx = ctx || {};
    var text = String(line == null ? "" : line).trim();
    if (!text) { return error("Type a message first."); }
    if (text.slice(0, 2) === "//") { return say(text.slice(1), [], ctx); }
    if (text.charAt(0) !== "/") { return say(text, [], ctx); }
    var match = /^\/(\S+)\s*([\s\S]*)$/.exec(text);
    var word = match[1].toLowerCase();
    var args = match[2];
    if (word === "help" || word === "?") { return { help: HELP.slice() }; }
    if (word === "me" || word === "em" || word === "emote") {
      if (!args.trim()) { return error("Say what you do: /me draws her sword."); }
      return say("/me " + args.trim(), [], ctx);
    }
    if (WHISPER[word]) { return whisper(args, ctx); }
    if (word === "as" || word === "emas") { return sayAs(args, ctx, word); }
    if (word === "ooc") { return sayIn("ooc", args, ctx, word); }
    if (word === "desc") { return sayIn("narration", args, ctx, word); }
    if (Object.prototype.hasOwnProperty.call(ROLLS, word)) {
      return roll(ROLLS[word] || pickedMode(ctx), args, word);
    }
    return error("There is no /" + word + " command. Type /help for the list.");
  }

  return { parse: parse, HELP: HELP };
});
