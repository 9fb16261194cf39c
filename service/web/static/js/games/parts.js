// Pieces several boards are built of: a seat's name plate, a row of cards, a labelled group, a score table.

import { t } from "../i18n.js";

export function element(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

/** A region of the board with a visible heading (its accessible name). */
export function area(className, heading, ...children) {
  const node = element("section", `area ${className}`);
  const title = element("h2", "area-title", heading);
  title.id = `area-${className.split(" ")[0]}`;
  node.setAttribute("aria-labelledby", title.id);
  node.append(title, ...children.filter(Boolean));
  return node;
}

/** The name plate of a seat: name, badges ("attacking", "to act"), cards held. */
export function plate(ui, seat, ...badges) {
  const node = element("div", "plate");
  node.append(element("span", "name", ui.seatName(seat)));
  if (ui.view.to_act.includes(seat)) badges.push(t("badge.to_act"));
  for (const badge of badges.filter(Boolean)) node.append(element("span", "badge", badge));
  return node;
}

/** A row of cards (a hand, a chain, a pile's top cards), as a list for assistive technology. */
export function cards(className, nodes, label) {
  const list = element("ul", `cards ${className}`);
  if (label) list.setAttribute("aria-label", label);
  for (const node of nodes) list.append(element("li", null, node));
  return list;
}

/** A row of action buttons (take, done, pass, draw...). */
export function buttons(...nodes) {
  return element("div", "buttons", ...nodes);
}

/** The scores of a two-seat game's result: seat -> score. */
export function scoreTable(ui, scores) {
  const table = element("table", "scores");
  const head = element("tr", null, element("th", null, t("result.player")), element("th", null, t("result.score")));
  head.querySelectorAll("th").forEach((cell) => cell.setAttribute("scope", "col"));
  table.append(element("thead", null, head));
  const body = element("tbody");
  for (const [seat, score] of Object.entries(scores)) {
    const name = element("th", null, ui.seatName(Number(seat)));
    name.setAttribute("scope", "row");
    body.append(element("tr", null, name, element("td", null, String(score))));
  }
  table.append(body);
  return table;
}

/** Every seat's revealed hand at the end (Durak, Svoi Koziri), or null while there is none. */
export function revealedHands(ui, hands) {
  if (!hands) return null;
  const node = element("div", "revealed");
  node.append(element("h3", null, t("result.hands")));
  hands.forEach((hand, seat) => {
    const row = element("div", "revealed-row", element("span", "name", ui.seatName(seat)));
    row.append(hand.length ? cards("hand small", hand.map((code) => ui.card(code)), ui.seatName(seat))
      : element("span", "none", t("result.no_cards")));
    node.append(row);
  });
  return node;
}

/**
 * A hand of a two-player game with hands (Durak, Svoi Koziri): the viewer's own cards, each a button when some
 * legal action plays it (`label(action, code)` names that move); another seat's cards face down until revealed.
 */
function handOf(ui, state, seat, label) {
  const revealed = state.revealed_hands && state.revealed_hands[seat];
  const own = seat === ui.view.you ? state.hand : revealed;
  if (!own) return ui.fanOf(seat, state.hand_sizes[seat]);
  return cards("hand", own.map((code) => {
    const action = ui.actions().find((legal) => legal.card === code);
    return action ? ui.card(code, { action, label: label(action, code) }) : ui.card(code);
  }), t("hand.of", { name: ui.seatName(seat) }));
}

/** What the two-player games with hands share: one seat to act, a score per seat, the hands shown at the end. */
export const handGame = {
  /**
   * The board: the other seat at the top, `centre`, the viewer (seat 0 for a spectator) at the bottom with `moves`
   * (buttons); `badge(seat)` is a seat's role, `label(action, code)` names the move a card makes.
   */
  board(ui, className, { badge, label, centre, moves }) {
    const state = ui.view.state;
    const you = ui.view.you === null ? 0 : ui.view.you;
    const side = (seat, where, ...extra) => element("div", `seat ${where}`, plate(ui, seat, badge(seat)),
      handOf(ui, state, seat, label), ...extra);
    return element("div", `board ${className}`, side(1 - you, "top"), centre, side(you, "bottom", buttons(...moves)));
  },

  turnSeat(view) {
    return view.to_act.length ? view.to_act[0] : null;
  },

  scores(view, ui) {
    return scoreTable(ui, view.result.scores);
  },

  revealed(view, ui) {
    return revealedHands(ui, view.state && view.state.revealed_hands);
  },
};
