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
