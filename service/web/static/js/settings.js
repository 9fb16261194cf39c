// Settings: the language and the three appearance sliders (contrast, grain, colour temperature; 0-100, 50 by
// default), remembered in this browser and applied to the whole page as CSS custom properties.

import { LANGUAGES, t } from "./i18n.js";

const KEY = "cardroom.settings";
const SLIDERS = ["contrast", "grain", "temperature"];
export const DEFAULTS = { contrast: 50, grain: 50, temperature: 50, language: null, name: "" };

export function loadSettings() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(KEY)) };
  } catch {
    return { ...DEFAULTS };
  }
}

export function saveSettings(settings) {
  localStorage.setItem(KEY, JSON.stringify(settings));
}

/** Contrast 0-100 -> 0.6-1.4; temperature below 50 tints blue, above 50 amber; grain -> noise opacity. */
export function applyAppearance(settings) {
  const style = document.documentElement.style;
  style.setProperty("--contrast", String(0.6 + (0.8 * settings.contrast) / 100));
  style.setProperty("--grain", String((0.5 * settings.grain) / 100));
  const warmth = (settings.temperature - 50) / 50;
  style.setProperty("--tint", warmth >= 0 ? "255, 150, 40" : "60, 140, 255");
  style.setProperty("--tint-strength", String(Math.abs(warmth) * 0.3));
}

/** The settings panel (a disclosure in the page header): language select and the sliders. */
export function settingsPanel(settings) {
  const panel = document.createElement("details");
  panel.className = "settings";
  const summary = document.createElement("summary");
  summary.textContent = t("settings.title");
  panel.append(summary);
  const body = document.createElement("div");
  body.className = "settings-body";
  const languageLabel = document.createElement("label");
  languageLabel.textContent = t("settings.language");
  const select = document.createElement("select");
  select.name = "language";
  for (const [code, name] of Object.entries(LANGUAGES)) select.append(new Option(name, code));
  select.value = document.documentElement.lang;
  select.addEventListener("change", () => {
    saveSettings({ ...loadSettings(), language: select.value });
    const url = new URL(location.href);
    url.searchParams.delete("lang");
    location.replace(url);
  });
  languageLabel.append(select);
  body.append(languageLabel);
  for (const name of SLIDERS) {
    const label = document.createElement("label");
    const caption = document.createElement("span");
    caption.textContent = t(`settings.${name}`);
    const input = document.createElement("input");
    Object.assign(input, { type: "range", name, min: 0, max: 100, step: 1, value: settings[name] });
    const output = document.createElement("output");
    output.value = `${settings[name]}%`;
    input.addEventListener("input", () => {
      const changed = { ...loadSettings(), [name]: Number(input.value) };
      output.value = `${input.value}%`;
      saveSettings(changed);
      applyAppearance(changed);
    });
    label.append(caption, input, output);
    body.append(label);
  }
  const reset = document.createElement("button");
  reset.type = "button";
  reset.textContent = t("settings.reset");
  reset.addEventListener("click", () => {
    const changed = { ...loadSettings() };
    for (const name of SLIDERS) {
      changed[name] = DEFAULTS[name];
      body.querySelector(`input[name=${name}]`).value = DEFAULTS[name];
      body.querySelector(`input[name=${name}] + output`).value = `${DEFAULTS[name]}%`;
    }
    saveSettings(changed);
    applyAppearance(changed);
  });
  body.append(reset);
  panel.append(body);
  return panel;
}
