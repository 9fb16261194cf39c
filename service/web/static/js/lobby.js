// The lobby: start a game (the game, an AI level or "a friend" per other seat, the game's options), or find a
// table by quick match, join an open game, watch one; and the join form a friend's link opens. Automation hooks:
// `form[data-create]` with `select[name=game]` and one `select[name=level]` per other seat (value `human`: a
// friend), its `button[data-quick-match]` (and `[data-quick-status]`, `button[data-quick-cancel]`), `form[data-join]`.

import { api, seats } from "./api.js";
import { t } from "./i18n.js";
import { loadSettings, saveSettings } from "./settings.js";
import { element } from "./games/parts.js";

const FRIEND = "human";
const QUICK_FALLBACK_SECONDS = 30;
const QUICK_WAIT_SECONDS = 25;

/** Create the game `body` (a POST /v1/games request), keep its token and setup, and open its table. */
export async function startGame(body) {
  const created = await api.create(body);
  seats.save(created.game_id, created.you, created.player_token);
  seats.saveSetup(created.game_id, body);
  location.assign(`/?game=${encodeURIComponent(created.game_id)}&seat=${created.you}`);
}

/**
 * Quick match: make a ticket for `body` (a POST /v1/matches request), long-poll it until it is matched, then keep
 * the seat's token and open the table. `show(text)` says where it stands; returns a function that cancels it.
 */
export function quickMatch(body, show, ended) {
  const controller = new AbortController();
  let made = null;
  const open = (matched) => {
    seats.save(matched.game_id, matched.seat, matched.player_token);
    location.assign(`/?game=${encodeURIComponent(matched.game_id)}&seat=${matched.seat}`);
  };
  (async () => {
    try {
      made = await api.match(body);
      let current = made;
      show(body.fallback ? t("lobby.quick_fallback", { seconds: body.fallback.after_seconds }) : t("lobby.quick_waiting"));
      while (current.status === "waiting") {
        current = await api.ticket(made.ticket_id, made.ticket_token, QUICK_WAIT_SECONDS, controller.signal);
      }
      if (current.status === "matched") open(current);
      else ended(t("lobby.quick_ended"));
    } catch (error) {
      if (!controller.signal.aborted) ended(error.message);
    }
  })();
  return async () => {
    controller.abort();
    if (!made) return ended("");
    try {
      await api.cancelTicket(made.ticket_id, made.ticket_token);
      ended("");
    } catch (error) {
      // seated meanwhile (409 ticket_matched): the table is there, go to it
      if (error.error === "ticket_matched") open(await api.ticket(made.ticket_id, made.ticket_token, 0));
      else ended(error.message);
    }
  };
}

function field(label, control) {
  const wrapper = element("label", "field", element("span", null, label));
  wrapper.append(control);
  return wrapper;
}

function select(name, options, value) {
  const control = document.createElement("select");
  control.name = name;
  for (const [optionValue, text] of options) control.append(new Option(text, optionValue));
  if (value !== undefined) control.value = String(value);
  return control;
}

function alertBox() {
  const box = element("p", "alert");
  box.setAttribute("role", "alert");
  return box;
}

function createForm(rules) {
  const byId = Object.fromEntries(rules.map((game) => [game.id, game]));
  const form = element("form", "create");
  form.dataset.create = "";
  form.setAttribute("aria-labelledby", "create-title");
  const title = element("h2", null, t("lobby.new_game"));
  title.id = "create-title";
  const game = select("game", rules.map((entry) => [entry.id, t(`game.${entry.id}`)]), rules[0].id);
  const name = document.createElement("input");
  Object.assign(name, { name: "name", maxLength: 40, value: loadSettings().name || t("lobby.default_name"), required: true });
  name.autocomplete = "nickname";
  const count = select("seats", [], undefined);
  const countField = field(t("lobby.players"), count);
  const opponents = element("fieldset", "opponents", element("legend", null, t("lobby.opponents")));
  const optionsBox = element("fieldset", "options", element("legend", null, t("lobby.options")));
  const alert = alertBox();
  const submit = element("button", "primary", t("lobby.start"));
  submit.type = "submit";
  const quick = element("button", null, t("lobby.quick_match"));
  quick.type = "button";
  quick.dataset.quickMatch = "";
  const quickStatus = element("p", "quick-status");
  quickStatus.dataset.quickStatus = "";
  quickStatus.setAttribute("aria-live", "polite");
  const quickCancel = element("button", null, t("lobby.quick_cancel"));
  quickCancel.type = "button";
  quickCancel.dataset.quickCancel = "";
  quickCancel.hidden = true;
  form.append(title, field(t("lobby.game"), game), field(t("lobby.your_name"), name), countField, opponents,
    optionsBox, submit, quick, quickStatus, quickCancel, alert);

  const drawOpponents = () => {
    const entry = byId[game.value];
    const levels = [...entry.ai_levels.map((level) => [level, t("lobby.ai", { level: t(`level.${level}`) })]),
      [FRIEND, t("lobby.friend")]];
    const kept = [...opponents.querySelectorAll("select[name=level]")].map((control) => control.value);
    opponents.querySelectorAll("label").forEach((label) => label.remove());
    for (let seat = 1; seat < Number(count.value); seat += 1) {
      opponents.append(field(t("lobby.seat", { seat: seat + 1 }), select("level", levels, kept[seat - 1] || "easy")));
    }
  };
  const drawGame = () => {
    const entry = byId[game.value];
    count.replaceChildren(...Array.from({ length: entry.seats.max - entry.seats.min + 1 },
      (_, index) => new Option(String(entry.seats.min + index), String(entry.seats.min + index))));
    countField.hidden = entry.seats.min === entry.seats.max;
    drawOpponents();
    optionsBox.querySelectorAll("label").forEach((label) => label.remove());
    for (const [key, schema] of Object.entries(entry.options)) {
      let control;
      if (schema.enum) {
        control = select(`option-${key}`, schema.enum.map((value) => [value, String(value)]), schema.default);
      } else {
        control = document.createElement("input");
        Object.assign(control, { type: "number", name: `option-${key}`, min: schema.minimum, max: schema.maximum,
          value: schema.default, step: 1, required: true });
      }
      optionsBox.append(field(t(`option.${entry.id}.${key}`), control));
    }
    optionsBox.hidden = !Object.keys(entry.options).length;
  };
  game.addEventListener("change", drawGame);
  count.addEventListener("change", drawOpponents);
  drawGame();

  const chosenOptions = (entry) => {
    const options = {};
    for (const key of Object.keys(entry.options)) {
      options[key] = Number(form.querySelector(`[name=option-${key}]`).value);
    }
    return options;
  };
  const levels = () => [...opponents.querySelectorAll("select[name=level]")].map((control) => control.value);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const entry = byId[game.value];
    const others = levels().map((level) => (level === FRIEND ? { kind: "human" } : { kind: "ai", level }));
    saveSettings({ ...loadSettings(), name: name.value });
    submit.disabled = true;
    try {
      await startGame({ game: entry.id, seats: [{ kind: "human", name: name.value }, ...others],
        options: chosenOptions(entry) });
    } catch (error) {
      alert.textContent = error.message;
      submit.disabled = false;
    }
  });
  // Quick match: a table of this game, seat count and options with whoever asks for the same; the first other
  // seat's AI level (unless "a friend") takes the free seats if nobody comes in time
  let cancel = null;
  const ended = (message) => {
    cancel = null;
    quickStatus.textContent = "";
    alert.textContent = message;
    quickCancel.hidden = true;
    submit.disabled = quick.disabled = false;
  };
  quick.addEventListener("click", () => {
    if (!form.reportValidity()) return;
    const entry = byId[game.value];
    const [level] = levels();
    const body = { game: entry.id, players: Number(count.value), options: chosenOptions(entry), name: name.value };
    if (level && level !== FRIEND) body.fallback = { after_seconds: QUICK_FALLBACK_SECONDS, level };
    saveSettings({ ...loadSettings(), name: name.value });
    alert.textContent = "";
    submit.disabled = quick.disabled = true;
    quickCancel.hidden = false;
    quickStatus.textContent = t("lobby.quick_waiting");
    cancel = quickMatch(body, (text) => { quickStatus.textContent = text; }, ended);
  });
  quickCancel.addEventListener("click", () => cancel && cancel());
  return form;
}

async function gameList(status, heading, linkText) {
  const section = element("section", `games ${status}`);
  section.setAttribute("aria-labelledby", `games-${status}`);
  const title = element("h2", null, heading);
  title.id = `games-${status}`;
  section.append(title);
  const { games } = await api.lobby(status);
  if (!games.length) {
    section.append(element("p", "note", t("lobby.none")));
    return section;
  }
  const list = element("ul", "game-list");
  for (const entry of games) {
    const names = entry.seats.map((seat) => (seat.kind === "ai" ? t("lobby.ai", { level: t(`level.${seat.level}`) })
      : seat.name || t("seat.open"))).join(" · ");
    const link = element("a", null, linkText);
    const held = Object.keys(seats.all(entry.game_id));
    link.href = status === "waiting" && !held.length ? `/?join=${encodeURIComponent(entry.game_id)}`
      : `/?game=${encodeURIComponent(entry.game_id)}`;
    if (held.length) link.textContent = t("lobby.resume");
    link.setAttribute("aria-label", `${link.textContent}: ${t(`game.${entry.game}`)}, ${names}`);
    list.append(element("li", null, element("strong", null, t(`game.${entry.game}`)), " ", element("span", null, names), " ", link));
  }
  section.append(list);
  return section;
}

function rulesLinks(rules) {
  const section = element("section", "rules-links");
  section.setAttribute("aria-labelledby", "rules-links-title");
  const title = element("h2", null, t("lobby.rules"));
  title.id = "rules-links-title";
  const list = element("ul");
  for (const entry of rules) {
    const link = element("a", null, t(`game.${entry.id}`));
    link.href = `/rules/${entry.id}`;
    list.append(element("li", null, link, " ", element("span", "note", t(`game.${entry.id}.summary`))));
  }
  section.append(title, list);
  return section;
}

export async function openLobby(main) {
  const rules = await api.rules();
  const heading = element("h1", null, t("lobby.title"));
  main.replaceChildren(element("div", "lobby", heading, createForm(rules),
    await gameList("waiting", t("lobby.open_games"), t("lobby.join")),
    await gameList("active", t("lobby.active_games"), t("lobby.watch")), rulesLinks(rules)));
  document.title = `${t("lobby.title")} · Cardroom`;
}

/** The page a join link opens: the game's seats and a name; the join is the ordinary POST /seats. */
export async function openJoin(main, gameId) {
  const view = await api.view(gameId);
  const form = element("form", "join");
  form.dataset.join = "";
  form.setAttribute("aria-labelledby", "join-title");
  const heading = element("h1", null, t("join.title", { game: t(`game.${view.game}`) }));
  heading.id = "join-title";
  form.append(heading);
  const names = view.seats.map((seat) => (seat.kind === "ai" ? t("lobby.ai", { level: t(`level.${seat.level}`) })
    : seat.name || t("seat.open")));
  form.append(element("p", null, t("join.seats", { names: names.join(", ") })));
  const watch = element("a", null, t("lobby.watch"));
  watch.href = `/?game=${encodeURIComponent(gameId)}`;
  if (!view.seats.some((seat) => seat.open)) {
    form.append(element("p", "note", t("join.full")), watch);
    main.replaceChildren(form);
    return;
  }
  const name = document.createElement("input");
  Object.assign(name, { name: "name", maxLength: 40, value: loadSettings().name || t("lobby.default_name"), required: true });
  const submit = element("button", "primary", t("join.take_seat"));
  submit.type = "submit";
  const alert = alertBox();
  form.append(field(t("lobby.your_name"), name), submit, alert);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    submit.disabled = true;
    try {
      const seated = await api.join(gameId, name.value);
      seats.save(gameId, seated.you, seated.player_token);
      saveSettings({ ...loadSettings(), name: name.value });
      location.assign(`/?game=${encodeURIComponent(gameId)}&seat=${seated.you}`);
    } catch (error) {
      alert.textContent = error.message;
      submit.disabled = false;
    }
  });
  main.replaceChildren(form);
  document.title = `${heading.textContent} · Cardroom`;
}
