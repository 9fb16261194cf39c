// Languages: every word the pages show comes from /assets/i18n/<lang>.json through `t`, card names included.

export const LANGUAGES = { en: "English", ru: "Русский", es: "Español", ta: "தமிழ்" };

let strings = {};

/** The language to use: `?lang=` in the URL, else the saved setting, else the browser's first known language. */
export function chooseLanguage(saved) {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked in LANGUAGES) return asked;
  if (saved in LANGUAGES) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = tag.toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

export async function loadLanguage(language) {
  const response = await fetch(`/assets/i18n/${language}.json`);
  strings = await response.json();
  document.documentElement.lang = language;
}

/** The string `key` with `{name}` placeholders filled from `params`; the key itself if it has no text. */
export function t(key, params = {}) {
  const text = strings[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** Translate the page's fixed text: `data-i18n` (text) and `data-i18n-label` (aria-label). */
export function translatePage(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const element of root.querySelectorAll("[data-i18n-label]")) {
    element.setAttribute("aria-label", t(element.dataset.i18nLabel));
  }
}

/** `10H` -> {rank: "10", suit: "H"}; the same for Spanish codes (`12O`). */
export function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

/** The full name of a card in the page's language: "Jack of hearts", "Валет червей", "Sota de oros". */
export function cardName(code, deck) {
  const { rank, suit } = parseCard(code);
  return t(`card.${deck}.name`, { rank: t(`card.${deck}.rank.${rank}`), suit: t(`card.${deck}.suit.${suit}`) });
}

const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** A short name for logs: "J♥" (French, rank letters of the language), the full name for Spanish cards. */
export function cardShort(code, deck) {
  if (deck !== "french") return cardName(code, deck);
  const { rank, suit } = parseCard(code);
  return `${t(`card.french.short.${rank}`)}${SUIT_SYMBOLS[suit]}`;
}

export function suitSymbol(suit) {
  return SUIT_SYMBOLS[suit];
}
