// Durak (shared/rules/durak.md): both hands, the stock with the trump card under it, the discard pile, the bout's
// attack/defence pairs, take and done.

import { suitSymbol, t } from "../i18n.js";
import { area, buttons, cards, element, plate, revealedHands, scoreTable } from "./parts.js";

function role(state, seat) {
  if (state.attacker === seat) return t("durak.attacker");
  if (state.defender === seat) return t("durak.defender");
  return null;
}

function hand(ui, state, seat) {
  const revealed = state.revealed_hands && state.revealed_hands[seat];
  const own = seat === ui.view.you ? state.hand : revealed;
  if (!own) return ui.fanOf(seat, state.hand_sizes[seat]);
  return cards("hand", own.map((code) => {
    const action = ui.actions().find((legal) => legal.card === code);
    if (!action) return ui.card(code);
    const label = action.type === "attack" ? t("durak.attack", { card: ui.cardName(code) })
      : t("durak.defend", { card: ui.cardName(code), against: ui.cardName(action.against) });
    return ui.card(code, { action, label });
  }), t("hand.of", { name: ui.seatName(seat) }));
}

function stock(ui, state) {
  const node = element("div", "stock");
  const trump = state.trump_card
    ? ui.card(state.trump_card, { label: t("durak.trump_card", { card: ui.cardName(state.trump_card) }) })
    : element("span", `trump-suit suit-${state.trump_suit}`, suitSymbol(state.trump_suit));
  trump.classList.add("trump");
  if (!state.trump_card) {
    trump.setAttribute("role", "img");
    trump.setAttribute("aria-label", t("durak.trump_suit", { suit: t(`card.french.suit.${state.trump_suit}`) }));
  }
  node.append(trump);
  if (state.stock_size > (state.trump_card ? 1 : 0)) {
    node.append(ui.back(t("pile.stock", { count: state.stock_size })));
  }
  const suit = `${suitSymbol(state.trump_suit)} ${t(`card.french.suit.${state.trump_suit}`)}`;
  node.append(element("span", "pile-count", `${t("pile.stock", { count: state.stock_size })} · ${t("badge.trump", { suit })}`));
  return node;
}

function table(ui, state) {
  const pairs = state.table.map((row) => {
    const pair = element("div", "pair");
    pair.append(ui.card(row.attack));
    if (row.defense) pair.append(ui.card(row.defense, { label: t("durak.beaten_by", { card: ui.cardName(row.defense) }) }));
    return pair;
  });
  const node = area("bout", t("durak.table"), cards("pairs", pairs));
  if (state.defender_took) node.append(element("p", "note", t("durak.took_note", { who: ui.seatName(state.defender) })));
  return node;
}

export default {
  deck: "french",

  render(view, ui) {
    const state = view.state;
    const you = view.you === null ? 0 : view.you;
    const other = 1 - you;
    const opponent = element("div", "seat top", plate(ui, other, role(state, other)), hand(ui, state, other));
    const discard = element("div", "discard",
      state.discard_size ? ui.back(t("pile.discard", { count: state.discard_size })) : null,
      element("span", "pile-count", t("pile.discard", { count: state.discard_size })));
    const centre = element("div", "centre", stock(ui, state), table(ui, state), discard);
    const moves = [...ui.actions("take"), ...ui.actions("done")].map((action) => ui.button(action, t(`durak.${action.type}`)));
    const mine = element("div", "seat bottom", plate(ui, you, role(state, you)), hand(ui, state, you), buttons(...moves));
    return element("div", "board durak", opponent, centre, mine);
  },

  turnSeat(view) {
    return view.to_act.length ? view.to_act[0] : null;
  },

  describe(event, said, ui) {
    const card = event.card && ui.short(event.card);
    switch (event.type) {
      case "attacked": return said("log.durak.attacked", { card });
      case "defended": return said("log.durak.defended", { card, against: ui.short(event.against) });
      case "took": return said("log.durak.took");
      case "bout_ended": return event.beaten_off ? t("log.durak.beaten_off") : t("log.durak.picked_up");
      case "drew": return event.count ? said("log.durak.drew", { count: event.count }) : null;
      case "trump_card_drawn": return said("log.durak.trump_drawn", { card });
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
