// Svoi Koziri (shared/rules/svoi_koziri.md): each player's own trump (chosen first), the face-up pile with its top
// card and size, both hands, lead / beat / play / take.

import { suitSymbol, t } from "../i18n.js";
import { area, buttons, cards, element, plate, revealedHands, scoreTable } from "./parts.js";

function trumpBadge(state, seat) {
  const suit = state.trumps[seat];
  return suit ? t("badge.trump", { suit: `${suitSymbol(suit)} ${t(`card.french.suit.${suit}`)}` }) : null;
}

function hand(ui, state, seat) {
  const revealed = state.revealed_hands && state.revealed_hands[seat];
  const own = seat === ui.view.you ? state.hand : revealed;
  if (!own) return ui.fanOf(seat, state.hand_sizes[seat]);
  return cards("hand", own.map((code) => {
    const action = ui.actions().find((legal) => legal.card === code);
    if (!action) return ui.card(code);
    return ui.card(code, { action, label: t(`svoi.${action.type}`, { card: ui.cardName(code) }) });
  }), t("hand.of", { name: ui.seatName(seat) }));
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
  deck: "french",

  render(view, ui) {
    const state = view.state;
    const you = view.you === null ? 0 : view.you;
    const other = 1 - you;
    const opponent = element("div", "seat top", plate(ui, other, trumpBadge(state, other)), hand(ui, state, other));
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
    const moves = ui.actions("take").map((action) => ui.button(action, t("svoi.take")));
    const mine = element("div", "seat bottom", plate(ui, you, trumpBadge(state, you)), hand(ui, state, you), buttons(...moves));
    return element("div", "board svoi", opponent, centre, mine);
  },

  turnSeat(view) {
    return view.to_act.length ? view.to_act[0] : null;
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

  scores(view, ui) {
    return scoreTable(ui, view.result.scores);
  },

  revealed(view, ui) {
    return revealedHands(ui, view.state && view.state.revealed_hands);
  },
};
