// Cards drawn as cards: corner indices, suit symbols in their colours (Spanish suits as small pictures), an
// accessible name in the page's language on every card, face down or up.

import { cardName, parseCard, suitSymbol, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

// Spanish suits: oros (a coin), copas (a cup), espadas (a sword), bastos (a club), 24x24.
const SPANISH_SUITS = {
  O: [["circle", { cx: 12, cy: 12, r: 9 }], ["circle", { cx: 12, cy: 12, r: 5, class: "inner" }]],
  C: [["path", { d: "M5 3h14c0 5.5-2.6 8.6-5.6 9.4V17H17v3H7v-3h3.6v-4.6C7.6 11.6 5 8.5 5 3z" }]],
  E: [["path", { d: "M12 .5l1.9 3V15h-3.8V3.5zM5.5 15h13v2.4h-13zM10.8 17.4h2.4v3.4h-2.4z" }],
    ["circle", { cx: 12, cy: 22, r: 1.6 }]],
  B: [["path", { d: "M9.5 2.5c2-1 4.2-.2 4.6 1.8l1.6 15.2c.2 1.6-.9 2.6-2.4 2.6s-2.5-1-2.7-2.6L8.5 5.2c-.2-1.2.2-2.2 1-2.7z" }],
    ["circle", { cx: 10.4, cy: 8, r: 1.3, class: "inner" }], ["circle", { cx: 13.4, cy: 13, r: 1.3, class: "inner" }]],
};

function spanishSuit(suit) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "suit-icon");
  for (const [tag, attributes] of SPANISH_SUITS[suit]) {
    const shape = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) shape.setAttribute(name, value);
    svg.append(shape);
  }
  return svg;
}

function suitMark(suit, deck) {
  if (deck === "spanish") return spanishSuit(suit);
  const mark = document.createElement("span");
  mark.setAttribute("aria-hidden", "true");
  mark.textContent = suitSymbol(suit);
  return mark;
}

function span(className, text) {
  const node = document.createElement("span");
  node.className = className;
  node.textContent = text;
  return node;
}

function corner(rank, suit, deck, where) {
  const element = document.createElement("span");
  element.className = `corner ${where}`;
  element.setAttribute("aria-hidden", "true");
  const index = document.createElement("span");
  index.textContent = deck === "french" ? t(`card.french.short.${rank}`) : rank;
  element.append(index, suitMark(suit, deck));
  return element;
}

/**
 * A card face (`code` such as "JH" or "12O", `deck` "french" or "spanish") as a `tag` element; the accessible
 * name is the card's name unless `label` (e.g. "Attack with Jack of hearts") replaces it.
 */
export function cardFace(code, deck, { tag = "span", label } = {}) {
  const { rank, suit } = parseCard(code);
  const element = document.createElement(tag);
  element.className = `card face ${deck} suit-${suit}`;
  if (tag === "span") element.setAttribute("role", "img");
  element.setAttribute("aria-label", label || cardName(code, deck));
  element.dataset.card = code;
  const middle = document.createElement("span");
  middle.className = "pip";
  middle.setAttribute("aria-hidden", "true");
  const court = deck === "spanish" ? ["10", "11", "12"].includes(rank) : ["J", "Q", "K"].includes(rank);
  if (court) {
    // a court card: its index large in a frame, over the suit
    middle.classList.add("court");
    middle.append(span("court-rank", deck === "french" ? t(`card.french.short.${rank}`) : rank));
  }
  middle.append(suitMark(suit, deck));
  element.append(corner(rank, suit, deck, "top"), middle, corner(rank, suit, deck, "bottom"));
  return element;
}

/** A card lying face down; `label` names it ("Face-down card", "Your target: face down"). */
export function cardBack({ tag = "span", label } = {}) {
  const element = document.createElement(tag);
  element.className = "card back";
  if (tag === "span") element.setAttribute("role", "img");
  element.setAttribute("aria-label", label || t("card.back"));
  return element;
}

/** `count` face-down cards overlapping, as a hand held by someone else, named "AI (easy): 6 cards". */
export function fan(count, label) {
  const element = document.createElement("div");
  element.className = "fan";
  element.setAttribute("role", "img");
  element.setAttribute("aria-label", label);
  for (let index = 0; index < Math.min(count, 24); index += 1) {
    const back = document.createElement("span");
    back.className = "card back";
    element.append(back);
  }
  return element;
}

/** A pile: a face-down card (or none) with its count, named "Stock: 12 cards". */
export function pile(count, label, top) {
  const element = document.createElement("div");
  element.className = "pile";
  const stack = top || (count ? cardBack({ label }) : document.createElement("span"));
  if (!count && !top) {
    stack.className = "card placeholder";
    stack.setAttribute("role", "img");
    stack.setAttribute("aria-label", label);
  }
  const caption = document.createElement("span");
  caption.className = "pile-count";
  caption.setAttribute("aria-hidden", "true");
  caption.textContent = String(count);
  element.append(stack, caption);
  return element;
}
