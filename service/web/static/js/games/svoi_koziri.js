// Svoi Koziri (docs/rules/svoi_koziri.md): each player's own trump (chosen first), the face-up pile with its top
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
    return this.board(ui, "svoi", {
      badge: (seat) => trumpBadge(state, seat),
      label: (action, code) => t(`svoi.${action.type}`, { card: ui.cardName(code) }),
      centre,
      moves: ui.actions("take").map((action) => ui.button(action, t("svoi.take"))),
    });
  },

  /**
   * What to do now (svoi_koziri.md §3.2-§3.7): the seat to act is told its step, a `respond` worded by what
   * `legal_actions` holds (`beat` entries or `take`, never both); anyone else, whom it waits for.
   */
  hint(view, ui) {
    const state = view.state;
    const actor = view.to_act[0];
    const top = state.pile.length ? ui.cardName(state.pile[state.pile.length - 1]) : null;
    if (actor !== view.you) {
      const name = ui.seatName(actor);
      switch (state.step) {
        case "choose_trump": return t("svoi.hint.wait_choose", { name });
        case "lead": return t("svoi.hint.wait_lead", { name });
        case "respond": return t("svoi.hint.wait_respond", { name, card: top });
        default: return t("svoi.hint.wait_play", { name });
      }
    }
    switch (state.step) {
      case "choose_trump": return t("svoi.hint.choose_trump");
      case "lead": return t("svoi.hint.lead");
      case "respond":
        return ui.actions("beat").length ? t("svoi.hint.beat", { card: top }) : t("svoi.hint.take", { card: top });
      default: return t("svoi.hint.play", { name: ui.seatName(1 - actor) });
    }
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
