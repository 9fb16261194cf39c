// Svoi Koziri (shared/rules/svoi_koziri.md): each player's own trump (chosen first), the face-up pile with its top
// card and size, both hands, lead / beat / play / take.

import { suitSymbol, t } from "../i18n.js";
import { area, buttons, cards, element, handGame } from "./parts.js";

function trumpBadge(state, seat) {
  const suit = state.trumps[seat];
  return suit ? t("badge.trump", { suit: `${suitSymbol(suit)} ${t(`card.french.suit.${suit}`)}` }) : null;
}

function pile(ui, state) {
  const shown = state.pile.slice(-5);
  const nodes = shown.map((code, index) => {
    const top = index === shown.length - 1;
    return ui.card(code, { label: top ? t("svoi.top", { card: ui.cardName(code) }) : undefined });
  });
  const node = area("pile", t("svoi.pile", { count: state.pile.length }),
    nodes.length ? cards("pile-cards", nodes) : element("p", "note", t("svoi.pile_empty")));
  return node;
}

export default {
  ...handGame,
  deck: "french",

  render(view, ui) {
    const state = view.state;
    const choices = ui.actions("choose_trump").map((action) => ui.button(action,
      t("svoi.choose_trump", { suit: t(`card.french.suit.${action.suit}`) }),
      element("span", `suit-choice suit-${action.suit}`, suitSymbol(action.suit))));
    const centre = element("div", "centre", pile(ui, state));
    if (choices.length) {
      centre.append(area("choose", t("svoi.choose_title"), buttons(...choices)));
    }
    const passed = (state.sixes_passed || []).map((code, seat) => code
      && t("svoi.six_passed", { who: ui.seatName(seat), card: ui.short(code) })).filter(Boolean);
    if (passed.length) centre.append(element("p", "note", passed.join(" · ")));
    if (view.status === "active" && state.step) centre.append(element("p", "note step", t(`svoi.step.${state.step}`)));
    return this.board(ui, "svoi", {
      badge: (seat) => trumpBadge(state, seat),
      label: (action, code) => t(`svoi.${action.type}`, { card: ui.cardName(code) }),
      centre,
      moves: ui.actions("take").map((action) => ui.button(action, t("svoi.take"))),
    });
  },

  describe(event, said, ui) {
    const card = event.card && ui.short(event.card);
    switch (event.type) {
      case "trump_chosen":
        return said("log.svoi.trump_chosen", { suit: `${suitSymbol(event.suit)} ${t(`card.french.suit.${event.suit}`)}` });
      case "dealt": return t("log.svoi.dealt");
      case "sixes_passed": return null; // shown on the board
      case "led": return said("log.svoi.led", { card });
      case "beat": return said("log.svoi.beat", { card, against: ui.short(event.against) });
      case "played": return said("log.svoi.played", { card });
      case "took": return said("log.svoi.took", { count: event.cards.length });
      default: return null;
    }
  },
};
