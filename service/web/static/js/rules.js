// A rules page, /rules/<game>: the players' rules in the page's language (rules/<game>/<lang>.html), with every
// `<span data-card="JH">` drawn as a card.

import { cardFace } from "./cards.js";
import { t } from "./i18n.js";
import { initPage, showError } from "./page.js";

const main = document.querySelector("main");
try {
  await initPage();
  const game = location.pathname.split("/").filter(Boolean).pop();
  const language = document.documentElement.lang;
  const response = await fetch(`/assets/rules/${game}/${language}.html`);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const article = document.createElement("article");
  article.className = "rules";
  article.innerHTML = await response.text(); // our own file, shipped with the package
  const deck = game === "talmut" ? "spanish" : "french";
  for (const spot of article.querySelectorAll("[data-card]")) spot.replaceWith(cardFace(spot.dataset.card, deck));
  const play = document.createElement("a");
  play.className = "primary";
  play.href = "/";
  play.textContent = t("rules.play");
  article.append(play);
  main.replaceChildren(article);
  document.title = `${article.querySelector("h1").textContent} · Cardroom`;
  for (const link of document.querySelectorAll(".rules-nav a")) {
    if (link.getAttribute("href") === `/rules/${game}`) link.setAttribute("aria-current", "page");
  }
} catch (error) {
  showError(main, error);
}
