// Talmut (docs/rules/talmut.md): every seat's face-down layout with the cards this seat knows, stock and discard
// pile, the drawn card, the powers' choices of seats and cards, matching out of turn, calling and withdrawing,
// round scores and totals. Spanish cards.

import { t } from "../i18n.js";
import { area, buttons, cards, element, plate } from "./parts.js";

const same = (a, b) => a && b && a.seat === b.seat && a.position === b.position;

/** "AI 2 (easy), card 3", or "your card 3". */
function where(ui, seat, position) {
  const key = seat === ui.view.you ? "talmut.own_position" : "talmut.position";
  return t(key, { name: ui.seatName(seat), position: position + 1 });
}

/** The one action a click on slot (seat, position) plays, besides the two-step blind swap. */
function slotAction(ui, seat, position) {
  return ui.actions().find((action) => {
    if (["swap", "match"].includes(action.type)) return seat === ui.view.you && action.position === position;
    if (["peek", "exchange"].includes(action.type)) return action.seat === seat && action.position === position;
    return false;
  });
}

function slotLabel(ui, action, seat, position, what) {
  const place = where(ui, seat, position);
  if (!action) return `${place}: ${what}`;
  return t(`talmut.slot.${action.type}`, { place, what });
}

function slot(ui, seat, data, blindSwaps) {
  const view = ui.view;
  const known = data.card;
  const seenBy = data.seen_by.map((other) => ui.seatName(other));
  let what = known ? ui.cardName(known) : t("card.back");
  if (seenBy.length && !data.empty) what += ` (${t("talmut.seen_by", { names: seenBy.join(", ") })})`;
  const here = { seat, position: data.position };
  let node;
  if (data.empty) {
    node = element("span", "card space");
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", slotLabel(ui, null, seat, data.position, t("talmut.empty_slot")));
    return node;
  }
  const action = slotAction(ui, seat, data.position);
  const picked = ui.selection && ui.selection.version === view.version ? ui.selection.place : null;
  const pairing = blindSwaps.find((swap) => picked && ((same(swap.a, picked) && same(swap.b, here))
    || (same(swap.b, picked) && same(swap.a, here))));
  if (action || pairing) {
    const playing = action || pairing;
    const label = pairing
      ? t("talmut.slot.blind_swap", { place: where(ui, seat, data.position) })
      : slotLabel(ui, action, seat, data.position, what);
    node = known ? ui.card(known, { action: playing, label }) : ui.faceDownButton(playing, label);
  } else if (blindSwaps.some((swap) => same(swap.a, here) || same(swap.b, here))) {
    // the first of the caballo's two cards: a choice, not yet an action
    const chosen = same(picked, here);
    node = known ? ui.card(known) : ui.back();
    const button = document.createElement("button");
    button.type = "button";
    button.className = `${node.className} playable choose${chosen ? " chosen" : ""}`;
    button.append(...node.childNodes);
    button.dataset.focus = `pick-${seat}-${data.position}`;
    button.setAttribute("aria-pressed", String(chosen));
    button.setAttribute("aria-label", t("talmut.pick", { place: where(ui, seat, data.position), what }));
    button.addEventListener("click", () => {
      ui.selection = chosen ? null : { version: view.version, place: here };
      ui.render();
    });
    node = button;
  } else {
    node = known ? ui.card(known, { label: slotLabel(ui, null, seat, data.position, what) })
      : ui.back(slotLabel(ui, null, seat, data.position, what));
  }
  if (seenBy.length) node.classList.add("seen");
  return node;
}

function layout(ui, view, seat) {
  const state = view.state;
  const badges = [t("talmut.total", { points: state.totals[String(seat)] })];
  if (state.dealer === seat) badges.push(t("talmut.dealer"));
  if (state.talmut && state.talmut.caller === seat) badges.push(t("talmut.caller"));
  if (state.window && state.window.last_thrower === seat) badges.push(t("talmut.last_thrower"));
  const blindSwaps = ui.actions("blind_swap");
  const slots = state.layouts[seat].slots.map((data) => slot(ui, seat, data, blindSwaps));
  const box = element("div", `seat${seat === view.you ? " mine" : ""}${state.turn === seat ? " turn" : ""}`,
    plate(ui, seat, ...badges), cards("layout", slots, t("talmut.layout_of", { name: ui.seatName(seat) })));
  return box;
}

function centre(ui, view) {
  const state = view.state;
  const node = element("div", "centre");
  const stockDraw = ui.actions("draw").find((action) => action.source === "stock");
  const stockLabel = t("pile.stock", { count: state.stock_size });
  const stock = stockDraw ? ui.faceDownButton(stockDraw, `${t("talmut.draw_stock")} (${stockLabel})`)
    : ui.back(stockLabel);
  const top = state.discard[state.discard.length - 1];
  const discardDraw = ui.actions("draw").find((action) => action.source === "discard");
  const discard = top ? ui.card(top, discardDraw
    ? { action: discardDraw, label: t("talmut.draw_discard", { card: ui.cardName(top) }) }
    : { label: t("talmut.discard_top", { card: ui.cardName(top) }) }) : element("span", "card placeholder");
  node.append(element("div", "pile", stock, element("span", "pile-count", stockLabel)),
    element("div", "pile", discard, element("span", "pile-count", t("pile.discard", { count: state.discard.length }))));
  if (state.drawn) {
    const who = ui.seatName(state.turn);
    const drawn = state.drawn.card ? ui.card(state.drawn.card) : ui.back();
    const discardIt = ui.actions("discard").map((action) => ui.button(action, t("talmut.discard")));
    node.append(area("drawn", t("talmut.drawn", { who }), drawn, buttons(...discardIt)));
  }
  if (state.power) {
    const skip = ui.actions("skip_power").map((action) => ui.button(action,
      t(state.phase === "exchange" ? "talmut.keep" : "talmut.skip_power")));
    const hint = t(`talmut.power.${state.power.kind}${state.phase === "exchange" ? "_exchange" : ""}`);
    node.append(area("power", t("talmut.power_title", { card: ui.cardName(state.power.card) }),
      element("p", "note", hint), buttons(...skip)));
  }
  const notes = [];
  if (state.window) notes.push(t("talmut.window", { rank: t(`card.spanish.rank.${state.window.rank}`) }));
  if (state.talmut) {
    notes.push(t("talmut.called", { who: ui.seatName(state.talmut.caller),
      names: state.talmut.last_turns.map((seat) => ui.seatName(seat)).join(", ") }));
  }
  node.append(...notes.map((note) => element("p", "note", note)));
  const moves = [...ui.actions("call").map((action) => ui.button(action, t("talmut.call"))),
    ...ui.actions("withdraw").map((action) => ui.button(action, t("talmut.withdraw")))];
  node.append(buttons(...moves));
  return node;
}

/** The turn seat's own step (talmut.md §3.2-§3.7), worded by what its `legal_actions` hold. */
function turnHint(ui, state) {
  switch (state.phase) {
    case "draw": {
      const stock = ui.actions("draw").some((action) => action.source === "stock");
      const call = ui.actions("call").length > 0;
      if (stock) return call ? t("talmut.hint.draw_or_call") : t("talmut.hint.draw");
      return call ? t("talmut.hint.draw_discard_or_call") : t("talmut.hint.draw_discard");
    }
    case "decide": return ui.actions("swap").length ? t("talmut.hint.decide") : t("talmut.hint.decide_discard");
    case "exchange": return t("talmut.hint.exchange");
    default: {
      if (state.power.kind === "sota") return t("talmut.hint.sota");
      if (state.power.kind === "rey") return t("talmut.hint.rey");
      const picked = ui.selection && ui.selection.version === ui.view.version;
      return picked ? t("talmut.hint.caballo_second") : t("talmut.hint.caballo");
    }
  }
}

/** What the turn seat is doing, for everyone else: public facts only (the phase, the power's card, the call). */
function waitHint(ui, state) {
  const name = ui.seatName(state.turn);
  switch (state.phase) {
    case "draw": {
      const mayCall = !state.talmut && state.call_barred !== state.turn;
      return mayCall ? t("talmut.hint.wait_draw_or_call", { name }) : t("talmut.hint.wait_draw", { name });
    }
    case "decide": return t("talmut.hint.wait_decide", { name });
    default: return t("talmut.hint.wait_power", { name, card: ui.cardName(state.power.card) });
  }
}

function scores(ui, totals, rounds) {
  const table = element("table", "scores");
  const head = element("tr", null, element("th", null, t("result.player")),
    ...rounds.map((round) => element("th", null, t("talmut.round", { round: round.round }))),
    element("th", null, t("talmut.totals")));
  head.querySelectorAll("th").forEach((cell) => cell.setAttribute("scope", "col"));
  table.append(element("thead", null, head));
  const body = element("tbody");
  for (const seat of Object.keys(totals)) {
    const name = element("th", null, ui.seatName(Number(seat)));
    name.setAttribute("scope", "row");
    body.append(element("tr", null, name,
      ...rounds.map((round) => element("td", null, `${round.points[seat]}${round.false_call && round.caller === Number(seat) ? " *" : ""}`)),
      element("td", null, String(totals[seat]))));
  }
  table.append(body);
  return table;
}

export default {
  deck: "spanish",

  render(view, ui) {
    const state = view.state;
    const board = element("div", "board talmut");
    board.append(element("p", "note round", t("talmut.round", { round: state.round })));
    const order = state.layouts.map((entry) => entry.seat).filter((seat) => seat !== view.you);
    const others = element("div", "others");
    for (const seat of order) others.append(layout(ui, view, seat));
    board.append(others, centre(ui, view));
    if (view.you !== null) board.append(layout(ui, view, view.you));
    if (state.history.length) {
      board.append(area("totals", t("talmut.totals"), scores(ui, state.totals, state.history)));
    }
    return board;
  },

  /**
   * What to do now: the turn seat's step, or whom the others wait for; then matching while a window is open (§3.9:
   * offered only in phase `draw`, so a seat that may match waits for the turn seat to draw) and withdrawing a call
   * that stands (§3.15), when `legal_actions` offer them.
   */
  hint(view, ui) {
    const state = view.state;
    const rank = state.window && state.window.rank;
    const matching = ui.actions("match").length > 0;
    const sentences = [];
    if (state.turn === view.you) {
      sentences.push(turnHint(ui, state));
      if (matching) sentences.push(t("talmut.hint.match_first", { rank }));
    } else if (matching) {
      sentences.push(t("talmut.hint.match", { rank, name: ui.seatName(state.turn) }));
    } else {
      sentences.push(waitHint(ui, state));
    }
    if (ui.actions("withdraw").length) sentences.push(t("talmut.hint.withdraw"));
    return sentences.join(" ");
  },

  turnSeat(view) {
    return view.state ? view.state.turn : null;
  },

  describe(event, said, ui) {
    const place = (spot) => where(ui, spot.seat, spot.position);
    switch (event.type) {
      case "drew": return said(`log.talmut.drew_${event.source}`, { card: event.card ? ui.short(event.card) : "" });
      case "swapped": return said("log.talmut.swapped", { position: event.position + 1, card: ui.short(event.discarded) });
      case "discarded": return said("log.talmut.discarded", { card: ui.short(event.card) });
      case "peeked": return said("log.talmut.peeked", { place: place(event.target) });
      case "blind_swapped": return said("log.talmut.blind_swapped", { a: place(event.a), b: place(event.b) });
      case "exchanged": return said("log.talmut.exchanged", { a: place(event.a), b: place(event.b) });
      case "power_skipped": return said("log.talmut.power_skipped");
      case "matched": return said(event.correct ? "log.talmut.matched" : "log.talmut.mismatched",
        { card: event.card ? ui.short(event.card) : "", position: event.position + 1 });
      case "stock_rebuilt": return t("log.talmut.stock_rebuilt");
      case "called": return said("log.talmut.called");
      case "withdrew": return said("log.talmut.withdrew");
      case "round_ended": return t("log.talmut.round_ended", { round: event.round });
      case "round_started": return t("log.talmut.round_started", { round: event.round });
      default: return null;
    }
  },

  scores(view, ui) {
    return scores(ui, view.result.scores.totals, view.result.scores.rounds);
  },

  revealed() {
    return null; // the last round's cards lie face up in every layout, and the rounds' points are in the table
  },
};
