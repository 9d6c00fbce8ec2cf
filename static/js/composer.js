// The composer's line, read into the frame it sends: chat, /me, /w, /r /gmr /br /sr, /help.
// `parse` is pure (no page, no socket) so it is tested on its own (tests/tabletop/scenes/
// test_composer_parser.py runs it under Node). Anything it cannot read comes back as an error
// for the composer to show, and nothing is sent.
(function (root, factory) {
  "use strict";
  var api = factory();
  if (typeof module === "object" && module.exports) { module.exports = api; }
  else { root.TabletopComposer = api; }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var LIMIT = 1000;  // tabletop.scenes.actions.chat.CHAT_LIMIT
  var EXPRESSION_LIMIT = 200;  // the dice box's field

  // Slash command -> roll mode (tabletop/scenes/modes.py). Foundry's words, and Roll20's.
  var ROLLS = {
    r: "public", roll: "public",
    gmr: "gm", gmroll: "gm",
    br: "blind", broll: "blind", blindroll: "blind",
    sr: "self", sroll: "self", selfroll: "self"
  };
  var WHISPER = { w: true, whisper: true, msg: true };

  var HELP = [
    "Type to talk to the table. *italic* and **bold** work.",
    "/me waves: say what your character does.",
    "/w NAME text: whisper to one member; /w NAME,NAME text to several; /w gm text to the GM.",
    "  A name is a member's name or one of their characters'; quote names with spaces: /w \"Mira Vex\" hi.",
    "/r 2d6+1: roll in the open. /gmr: private to the GM. /br: blind (only the GM sees it). /sr: only you.",
    "//text sends a line that starts with a slash.",
    "/help: this list."
  ];

  function error(message) { return { error: message }; }

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
    return say(text, to);
  }

  // ``counted``: the part the server caps (an emote's words, without "/me ").
  function say(text, to, counted) {
    var length = (counted === undefined ? text : counted).length;
    if (length > LIMIT) {
      return error("A message is at most " + LIMIT + " characters (this one has " + length + ").");
    }
    return { frame: { command: "chat", text: text, to: to } };
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
   * Read one composer line. ctx: { members: [{id, name, gm, characters}], me: user id,
   * isGm: bool }. Returns { frame } to send, { help: [lines] } to show, or { error }.
   */
  function parse(line, ctx) {
    ctx = ctx || {};
    var text = String(line == null ? "" : line).trim();
    if (!text) { return error("Type a message first."); }
    if (text.slice(0, 2) === "//") { return say(text.slice(1), []); }
    if (text.charAt(0) !== "/") { return say(text, []); }
    var match = /^\/(\S+)\s*([\s\S]*)$/.exec(text);
    var word = match[1].toLowerCase();
    var args = match[2];
    if (word === "help" || word === "?") { return { help: HELP.slice() }; }
    if (word === "me" || word === "em" || word === "emote") {
      if (!args.trim()) { return error("Say what you do: /me draws her sword."); }
      return say("/me " + args.trim(), [], args.trim());
    }
    if (WHISPER[word]) { return whisper(args, ctx); }
    if (Object.prototype.hasOwnProperty.call(ROLLS, word)) { return roll(ROLLS[word], args, word); }
    return error("There is no /" + word + " command. Type /help for the list.");
  }

  return { parse: parse, HELP: HELP, LIMIT: LIMIT };
});
