// What every page does first: pick the language, load its strings, apply the appearance settings, put the
// settings panel in the header.

import { chooseLanguage, loadLanguage, translatePage } from "./i18n.js";
import { applyAppearance, loadSettings, saveSettings, settingsPanel } from "./settings.js";

export async function initPage() {
  let settings = loadSettings();
  const language = chooseLanguage(settings.language);
  if (new URLSearchParams(location.search).has("lang") && settings.language !== language) {
    settings = { ...settings, language }; // a language picked in the URL is the one the next pages use
    saveSettings(settings);
  }
  applyAppearance(settings);
  await loadLanguage(language);
  translatePage();
  document.querySelector(".site-header").append(settingsPanel(settings));
  return settings;
}

/** Show a failure where the page would be (a game that expired, a server that is down). */
export function showError(main, error) {
  const message = document.createElement("p");
  message.className = "alert";
  message.setAttribute("role", "alert");
  message.textContent = error.message || String(error);
  main.replaceChildren(message);
}
