// The table: one game's view, live. The game's renderer (games/<game>.js) draws the board from the view; this
// module owns what every game shares: the root's automation attributes, whose turn it is, the hint line (what to do
// now, in words: the renderer's `hint`), playing an action (every clickable legal action is a button whose
// `data-action` is its exact JSON body), the log, the invitation link while seats are open, "opponent away" with
// the Claim button in a game with claims, and the result with "Play again".

import { api, follow, seats } from "./api.js";
import { cardBack, cardFace, fan } from "./cards.js";
import { cardName, cardShort, t } from "./i18n.js";
import { RENDERERS } from "./games/index.js";
import { startGame } from "./lobby.js";

const LOG_LENGTH = 12;

export async function openTable(main, gameId, seatWanted) {
  const held = seats.all(gameId);
  const seat = seatWanted in held ? seatWanted : Object.keys(held).sort()[0];
  const token = seat === undefined ? null : held[seat];
  const view = await api.view(gameId, token);
  new Table(main, view, token, seat === undefined ? null : Number(seat)).start();
}

class Table {
  constructor(main, view, token, seat) {
    this.main = main;
    this.view = view;
    this.token = token;
    // the seat this browser's token was given for: once the seat is the AI's (a resigned Talmut seat), the token
    // reads the spectator view (`you` null), and only this says whose seat it was
    this.seat = seat;
    this.renderer = RENDERERS[view.game];
    this.busy = false;
    this.selection = null; // a renderer's half-made choice (Talmut's first card of a blind swap)
    this.logged = 0;
    this.logQueue = Promise.resolve();
    this.root = document.createElement("section");
    this.root.className = `table game-${view.game}`;
    this.root.setAttribute("aria-labelledby", "table-title");
    // one element for the whole visit, its text changed only when the hint changes: a screen reader announces a
    // live region's changes, not a region that is replaced, and not the same sentence again at every version
    this.hint = document.createElement("p");
    this.hint.className = "hint";
    this.hint.dataset.hint = "";
    this.hint.setAttribute("aria-live", "polite");
    this.hint.setAttribute("aria-atomic", "true");
    this.root.append(this.hint);
    this.away = this.awayPanel();
    this.presenceTimer = null;
    this.presenceTicks = 0;
    main.replaceChildren(this.root);
    document.title = `${t(`game.${view.game}`)} · Cardroom`;
  }

  start() {
    this.render();
    this.updateLog();
    this.stop = follow(this.view.game_id, this.token, this.view.version, (view) => this.show(view));
  }

  show(view) {
    if (view.version <= this.view.version) return; // the action's answer and the stream may both bring it
    this.view = view;
    this.render();
    this.updateLog();
  }

  // --- what a renderer calls -------------------------------------------------------------------------------

  /** "You", the player's name, or "AI (easy)". */
  seatName(seat) {
    if (seat === this.view.you) return t("seat.you");
    const entry = this.view.seats[seat];
    if (entry.kind === "ai") {
      // several AI seats (Talmut) are told apart by their seat number
      const several = this.view.seats.filter((other) => other.kind === "ai").length > 1;
      const level = t(`level.${entry.level}`);
      const name = several ? t("seat.ai_numbered", { seat: seat + 1, level }) : t("seat.ai", { level });
      return entry.resigned ? t("seat.resigned", { name: entry.name || name }) : name;
    }
    return entry.name || (entry.open ? t("seat.open") : t("seat.number", { seat: seat + 1 }));
  }

  /** The legal actions of `type` (all of them without a type), in the server's order. */
  actions(type) {
    return this.view.legal_actions.filter((action) => type === undefined || action.type === type);
  }

  /** A button that plays `action` (one of `legal_actions`, verbatim): `data-action` holds its JSON body. */
  button(action, label, content) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.action = JSON.stringify(action);
    button.className = "action";
    if (content) {
      button.append(content);
      button.setAttribute("aria-label", label);
    } else {
      button.textContent = label;
    }
    button.addEventListener("click", () => this.play(action));
    return button;
  }

  /** A card face in this game's deck; a button playing `action` when given one. */
  card(code, { action, label } = {}) {
    const deck = this.renderer.deck;
    if (!action) return cardFace(code, deck, { label });
    const button = cardFace(code, deck, { tag: "button", label: label || cardName(code, deck) });
    button.type = "button";
    button.classList.add("playable");
    button.dataset.action = JSON.stringify(action);
    button.addEventListener("click", () => this.play(action));
    return button;
  }

  back(label) {
    return cardBack({ label });
  }

  /** A face-down card (the stock, an unknown layout card) that plays `action`. */
  faceDownButton(action, label) {
    const button = cardBack({ tag: "button", label });
    button.type = "button";
    button.classList.add("playable");
    button.dataset.action = JSON.stringify(action);
    button.addEventListener("click", () => this.play(action));
    return button;
  }

  /** Someone else's hand: `count` cards seen from behind. */
  fanOf(seat, count) {
    return fan(count, t("hand.count", { name: this.seatName(seat), count }));
  }

  cardName(code) {
    return cardName(code, this.renderer.deck);
  }

  short(code) {
    return cardShort(code, this.renderer.deck);
  }

  // --- playing ----------------------------------------------------------------------------------------------

  async play(action) {
    if (this.busy) return;
    const body = JSON.stringify(action);
    const index = this.view.legal_actions.findIndex((legal) => JSON.stringify(legal) === body);
    if (index < 0) return;
    this.busy = true;
    this.root.setAttribute("aria-busy", "true");
    try {
      this.show(await api.play(this.view.game_id, this.token, action, `${this.view.version}-${index}`));
      this.say("");
    } catch (error) {
      // the game moved on meanwhile (an AI, or a friend): show why, and the game as it is now
      this.say(error.message || String(error));
      this.show(await api.view(this.view.game_id, this.token));
    } finally {
      this.busy = false;
      this.root.removeAttribute("aria-busy");
    }
  }

  say(message) {
    const alert = this.root.querySelector(".alert");
    if (alert) alert.textContent = message;
  }

  // --- drawing ----------------------------------------------------------------------------------------------

  render() {
    const view = this.view;
    const focused = document.activeElement;
    const focusKey = this.root.contains(focused) ? focused.dataset.action || focused.dataset.focus : null;
    const root = this.root;
    root.dataset.game = view.game;
    root.dataset.status = view.status;
    root.dataset.version = String(view.version);
    root.dataset.you = view.you === null ? "" : String(view.you);
    const log = root.querySelector(".log") || this.logPanel();
    const bar = document.createElement("header");
    bar.className = "table-bar";
    const title = document.createElement("h1");
    title.id = "table-title";
    title.textContent = t(`game.${view.game}`);
    const status = document.createElement("p");
    status.className = "status";
    status.setAttribute("role", "status");
    status.textContent = this.statusLine();
    const rules = document.createElement("a");
    rules.href = `/rules/${view.game}`;
    rules.target = "_blank";
    rules.textContent = t("nav.rules");
    bar.append(title, status, rules);
    for (const action of this.actions("resign")) bar.append(this.button(action, t("action.resign")));
    bar.append(this.away); // the one element of the whole visit: its count goes on between versions
    const alert = document.createElement("p");
    alert.className = "alert";
    alert.setAttribute("role", "alert");
    alert.textContent = root.querySelector(".alert")?.textContent || "";
    const board = document.createElement("div");
    board.className = "felt";
    if (view.status === "waiting") board.append(this.invitation());
    else board.append(this.renderer.render(view, this));
    for (const child of [...root.children]) if (child !== this.hint) child.remove();
    this.hint.before(bar, alert);
    this.hint.after(...(view.status === "finished" ? [this.resultPanel()] : []), board, log);
    const hint = this.hintLine();
    if (this.hint.textContent !== hint) this.hint.textContent = hint;
    this.restoreFocus(focusKey, focused);
    this.watchPresence();
  }

  restoreFocus(key, previous) {
    if (!key) return;
    const same = [...this.root.querySelectorAll("[data-action], [data-focus]")].find(
      (element) => (element.dataset.action || element.dataset.focus) === key,
    );
    // keyboard play: when the move just played is gone, the next one is a Tab away at most
    const next = same || this.root.querySelector(".felt [data-action], .result button");
    if (next && previous !== next) next.focus();
  }

  statusLine() {
    const view = this.view;
    if (view.status === "waiting") return t("status.waiting");
    if (view.status === "finished") return t("status.finished");
    if (view.you !== null && view.to_act.includes(view.you)) {
      const onlyOutOfTurn = view.legal_actions.every((action) => ["match", "withdraw", "resign"].includes(action.type));
      return onlyOutOfTurn ? t("status.you_may_act") : t("status.your_turn");
    }
    if (view.pending_ai.length) return t("status.thinking", { name: this.seatName(view.pending_ai[0]) });
    const turn = this.renderer.turnSeat(view);
    return turn === null ? "" : t("status.waiting_for", { name: this.seatName(turn) });
  }

  /**
   * What to do now, in words: the renderer's sentence while the game is active, made from `legal_actions`,
   * `to_act` and the public `state` only (never more than the seat may know).
   */
  hintLine() {
    const view = this.view;
    if (view.status === "waiting") return t("hint.waiting");
    if (view.status === "finished") return t("hint.finished");
    // a resigned Talmut seat plays on as an AI (talmut.md §3.17): nothing is left for this page to do
    if (this.seat !== null && view.seats[this.seat]?.resigned) return t("hint.resigned");
    return this.renderer.hint(view, this);
  }

  invitation() {
    const panel = document.createElement("div");
    panel.className = "invite";
    const heading = document.createElement("h2");
    heading.textContent = t("invite.title");
    panel.append(heading);
    const open = this.view.seats.filter((entry) => entry.open);
    const text = document.createElement("p");
    text.textContent = t("invite.text", { count: open.length });
    panel.append(text);
    if (this.view.you !== null) {
      const label = document.createElement("label");
      label.textContent = t("invite.link");
      const link = document.createElement("input");
      link.readOnly = true;
      link.name = "join-link";
      link.value = `${location.origin}/?join=${encodeURIComponent(this.view.game_id)}`;
      label.append(link);
      const copy = document.createElement("button");
      copy.type = "button";
      copy.textContent = t("invite.copy");
      copy.addEventListener("click", async () => {
        link.select();
        try {
          await navigator.clipboard.writeText(link.value);
          copy.textContent = t("invite.copied");
        } catch {
          copy.textContent = t("invite.select");
        }
      });
      panel.append(label, copy);
    }
    const list = document.createElement("ul");
    for (const entry of this.view.seats) {
      const item = document.createElement("li");
      item.textContent = this.seatName(entry.seat);
      list.append(item);
    }
    panel.append(list);
    return panel;
  }

  resultPanel() {
    const view = this.view;
    const result = view.result;
    const panel = document.createElement("section");
    panel.className = "result";
    panel.dataset.result = "";
    panel.dataset.winners = JSON.stringify(result.winners);
    panel.dataset.losers = JSON.stringify(result.losers);
    panel.dataset.draw = String(result.draw);
    panel.dataset.reason = result.reason;
    panel.setAttribute("aria-labelledby", "result-title");
    const heading = document.createElement("h2");
    heading.id = "result-title";
    heading.textContent = resultHeading(result, view.you, (seat) => this.seatName(seat));
    const reason = document.createElement("p");
    reason.className = "reason";
    reason.textContent = t(`reason.${result.reason}`);
    panel.append(heading, reason, this.renderer.scores(view, this));
    const revealed = this.renderer.revealed(view, this);
    if (revealed) panel.append(revealed);
    const again = document.createElement("button");
    again.type = "button";
    again.className = "again";
    again.textContent = t("result.again");
    again.addEventListener("click", () => startGame(this.setup()));
    const lobby = document.createElement("a");
    lobby.href = "/";
    lobby.textContent = t("nav.lobby");
    panel.append(again, lobby, ...this.downloads());
    return panel;
  }

  /** "Download game": the finished game's export as a JSON file; a Durak game's move list as text too. */
  downloads() {
    const id = this.view.game_id;
    const link = (format, name, label) => {
      const anchor = document.createElement("a");
      anchor.className = "download";
      anchor.dataset.download = format;
      anchor.href = api.exportUrl(id, format);
      anchor.download = name;
      anchor.textContent = t(label);
      return anchor;
    };
    const links = [link("json", `${this.view.game}-${id}.json`, "result.download")];
    if (this.view.game === "durak") links.push(link("text", `durak-${id}.txt`, "result.download_text"));
    return links;
  }

  /** The create request for "Play again": the one this game was made with, else the same seats. */
  setup() {
    const saved = seats.setup(this.view.game_id);
    if (saved) return saved;
    const mine = this.view.you;
    const others = this.view.seats.filter((entry) => entry.seat !== mine);
    return {
      game: this.view.game,
      seats: [{ kind: "human" }, ...others.map((entry) => (entry.kind === "ai" && !entry.resigned
        ? { kind: "ai", level: entry.level } : { kind: "human" }))],
      options: {},
    };
  }

  // --- presence and claims (docs/api-additions.md "Presence and claims") ------------------------------------

  /** "Opponent away (for how long)" and the Claim button, hidden until a seat the game waits for may be claimed. */
  awayPanel() {
    const panel = document.createElement("p");
    panel.className = "away";
    panel.dataset.away = "";
    panel.setAttribute("role", "status");
    panel.hidden = true;
    const text = document.createElement("span");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "claim";
    button.dataset.claim = "";
    button.textContent = t("away.claim");
    button.addEventListener("click", () => this.claim());
    panel.append(text, " ", button);
    return panel;
  }

  /** The awaited seat (not this player's) whose absence may be claimed soonest: `{seat, from}` (ms), or null. */
  claimable() {
    const claim = this.view.claim;
    if (!claim || this.view.you === null || this.view.status !== "active") return null;
    const others = claim.seats
      .filter((entry) => entry.seat !== this.view.you)
      .map((entry) => ({ seat: entry.seat, from: Date.parse(entry.from) }));
    return others.length ? others.reduce((soonest, entry) => (entry.from < soonest.from ? entry : soonest)) : null;
  }

  /**
   * Show the away panel once the soonest claimable seat's `from` has passed, counting how long it has been away
   * every second. The stream brings new versions, not presence (`last_seen` moves without one), so the view is
   * read again when `from` comes and every 10 s while the panel shows: a player who came back hides it.
   */
  watchPresence() {
    clearTimeout(this.presenceTimer);
    const target = this.claimable();
    const now = Date.now();
    if (!target || now < target.from) {
      this.away.hidden = true;
      if (target) this.presenceTimer = setTimeout(() => this.readPresence(), target.from - now);
      return;
    }
    const away = Math.floor((now - target.from) / 1000) + this.view.claim.after_seconds;
    const time = `${Math.floor(away / 60)}:${String(away % 60).padStart(2, "0")}`;
    this.away.dataset.seat = String(target.seat);
    this.away.firstChild.textContent = t("away.text", { name: this.seatName(target.seat), time });
    this.away.hidden = false;
    this.presenceTicks += 1;
    const next = this.presenceTicks % 10 ? () => this.watchPresence() : () => this.readPresence();
    this.presenceTimer = setTimeout(next, 1000);
  }

  async readPresence() {
    try {
      const fresh = await api.presence(this.view.game_id, this.token);
      if (fresh.version > this.view.version) return this.show(fresh); // renders, and so watches again
      if (fresh.version === this.view.version) this.view = fresh;
    } catch {
      // a failed read is no reason to stop: the next tick reads again
    }
    this.watchPresence();
  }

  async claim() {
    if (this.busy) return;
    this.busy = true;
    try {
      this.show(await api.claim(this.view.game_id, this.token));
      this.say("");
    } catch (error) {
      // too early (the player came back) or the game moved on: say why, and read the game as it is now
      this.say(error.message || String(error));
      await this.readPresence();
    } finally {
      this.busy = false;
    }
  }

  // --- the log ----------------------------------------------------------------------------------------------

  logPanel() {
    const panel = document.createElement("section");
    panel.className = "log";
    panel.setAttribute("aria-labelledby", "log-title");
    const heading = document.createElement("h2");
    heading.id = "log-title";
    heading.textContent = t("log.title");
    const list = document.createElement("ol");
    list.setAttribute("aria-live", "polite");
    panel.append(heading, list);
    return panel;
  }

  updateLog() {
    // one request at a time, so each event is told once and in order
    this.logQueue = this.logQueue.then(async () => {
      if (this.view.version <= this.logged) return;
      const { events } = await api.events(this.view.game_id, this.token, this.logged);
      const list = this.root.querySelector(".log ol");
      for (const event of events) {
        const line = this.describe(event);
        if (!line) continue;
        const item = document.createElement("li");
        item.textContent = line;
        list.prepend(item);
      }
      while (list.children.length > LOG_LENGTH) list.lastChild.remove();
      this.logged = Math.max(this.logged, ...events.map((event) => event.version));
    }).catch(() => {}); // a log line missed is no reason to stop the table
  }

  describe(event) {
    const who = event.seat === undefined ? "" : this.seatName(event.seat);
    const you = event.seat !== undefined && event.seat === this.view.you;
    const said = (key, params = {}) => t(you ? `${key}.you` : key, { who, ...params });
    if (event.type === "seat_taken") return t("log.seat_taken", { name: event.name });
    if (event.type === "resigned") return said("log.resigned");
    if (event.type === "claimed") return said("log.claimed", { by: this.seatName(event.by) });
    if (event.type === "game_ended") return t(`reason.${event.reason}`);
    if (event.type === "created") return null;
    return this.renderer.describe(event, said, this);
  }
}

/** "You won", "AI (easy) won", "Draw", "Ann and Bob won" for a result seen from seat `you`. */
export function resultHeading(result, you, name) {
  if (result.draw) return t("result.draw");
  if (result.winners.includes(you)) return result.winners.length > 1 ? t("result.you_shared") : t("result.you_won");
  return t("result.won", { names: result.winners.map(name).join(", ") });
}
