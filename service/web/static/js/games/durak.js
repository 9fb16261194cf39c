// Durak (docs/rules/durak.md): both hands, the stock with the trump card under it, the discard pile, the bout's
// attack/defence pairs, take and done.

import { suitSymbol, t } from "../i18n.js";
import { area, cards, element, handGame } from "./parts.js";

function role(state, seat) {
  if (state.attacker === seat) return t("durak.attacker");
  if (state.defender === seat) return t("durak.defender");
  return null;
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
  ...handGame,
  deck: "french",

  render(view, ui) {
    const state = view.state;
    const discard = element("div", "discard",
      state.discard_size ? ui.back(t("pile.discard", { count: state.discard_size })) : null,
      element("span", "pile-count", t("pile.discard", { count: state.discard_size })));
    // once the game is over the state keeps its last bout (durak.md §6.4): its cards are already in a hand, and
    // nobody attacks or defends any more
    const over = view.status === "finished";
    return this.board(ui, "durak", {
      badge: (seat) => (over ? null : role(state, seat)),
      label: (action, code) => (action.type === "attack" ? t("durak.attack", { card: ui.cardName(code) })
        : t("durak.defend", { card: ui.cardName(code), against: ui.cardName(action.against) })),
      centre: element("div", "centre", stock(ui, state), over ? null : table(ui, state), discard),
      moves: [...ui.actions("take"), ...ui.actions("done")].map((action) => ui.button(action, t(`durak.${action.type}`))),
    });
  },

  /**
   * What to do now (durak.md §3.2-§3.7): the seat to act is told its choice, worded by what `legal_actions` holds
   * (no `defend` listed: it cannot beat; no `attack` listed: nothing more to add); anyone else, whom it waits for.
   */
  hint(view, ui) {
    const state = view.state;
    const actor = view.to_act[0];
    const undefended = state.table.find((row) => !row.defense);
    const card = undefended && ui.cardName(undefended.attack);
    if (actor !== view.you) {
      const name = ui.seatName(actor);
      if (actor === state.defender) return t("durak.hint.wait_defend", { name, card });
      if (state.defender_took && view.you === state.defender) return t("durak.hint.wait_taken", { name });
      return state.table.length ? t("durak.hint.wait_add", { name }) : t("durak.hint.wait_attack", { name });
    }
    if (actor === state.defender) {
      return ui.actions("defend").length ? t("durak.hint.defend", { card }) : t("durak.hint.take", { card });
    }
    if (!state.table.length) return t("durak.hint.attack");
    const adding = ui.actions("attack").length > 0;
    if (state.defender_took) {
      const name = ui.seatName(state.defender);
      return adding ? t("durak.hint.add_to_take", { name }) : t("durak.hint.done_to_take", { name });
    }
    return adding ? t("durak.hint.add") : t("durak.hint.done");
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
};
