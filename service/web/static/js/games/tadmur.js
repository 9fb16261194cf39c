// Tadmur (docs/rules/tadmur.md): both rows (starter, placed chain, empty spaces, face-down target), the hand,
// guessing the rank of the other target, passing.

import { t } from "../i18n.js";
import { area, buttons, cards, element, plate, scoreTable } from "./parts.js";

function row(ui, view, seat) {
  const data = view.state.rows[seat];
  const nodes = [ui.card(data.starter, { label: t("tadmur.starter", { card: ui.cardName(data.starter) }) })];
  for (const code of data.chain) nodes.push(ui.card(code));
  for (let index = 0; index < data.empty; index += 1) {
    const space = element("span", "card space");
    space.setAttribute("role", "img");
    space.setAttribute("aria-label", t("tadmur.space"));
    nodes.push(space);
  }
  const mine = seat === view.you && view.status === "active";
  if (data.target) {
    const label = mine ? t("tadmur.your_target", { card: ui.cardName(data.target) })
      : t("tadmur.target", { card: ui.cardName(data.target) });
    const target = ui.card(data.target, { label });
    target.classList.add("target", ...(mine ? ["secret"] : []));
    nodes.push(target);
  } else {
    const target = ui.back(t("tadmur.target_hidden"));
    target.classList.add("target");
    nodes.push(target);
  }
  const details = [t("tadmur.empty", { count: data.empty })];
  if (data.wrong_guesses.length) details.push(t("tadmur.wrong", { ranks: data.wrong_guesses.map(rankName).join(", ") }));
  return element("div", `seat ${seat === (view.you ?? 0) ? "bottom" : "top"}`,
    plate(ui, seat, ...details), cards("row", nodes, t("tadmur.row_of", { name: ui.seatName(seat) })));
}

function rankName(rank) {
  return t(`card.french.rank.${rank}`);
}

export default {
  deck: "french",

  render(view, ui) {
    const state = view.state;
    const you = view.you === null ? 0 : view.you;
    const board = element("div", "board tadmur", row(ui, view, 1 - you));
    // a wrong guess this turn is told by the hint line, to the guesser as "you", to the other seat by name
    const notes = state.guessing_locked ? [t("tadmur.locked")] : [];
    board.append(element("div", "centre", ...notes.map((note) => element("p", "note", note))));
    board.append(row(ui, view, you));
    const guesses = ui.actions("guess").map((action) =>
      ui.button(action, t("tadmur.guess", { rank: rankName(action.rank) }),
        element("span", "rank", t(`card.french.short.${action.rank}`))));
    if (guesses.length) board.append(area("guesses", t("tadmur.guess_title"), buttons(...guesses)));
    if (state.hand) {
      const hand = cards("hand", state.hand.map((code) => {
        const action = ui.actions("place").find((legal) => legal.card === code);
        return action ? ui.card(code, { action, label: t("tadmur.place", { card: ui.cardName(code) }) }) : ui.card(code);
      }), t("hand.of", { name: ui.seatName(you) }));
      const passes = ui.actions("pass").map((action) => ui.button(action, t("tadmur.pass")));
      board.append(area("own-hand", t("hand.yours"), hand, buttons(...passes)));
    }
    return board;
  },

  /**
   * What to do now (tadmur.md §3.3-§3.9): the seat to act is told whether a card fits its row (`place` listed, else
   * `pass`) and whether it may still guess; after a wrong guess, that it cost a space. Anyone else, whom it waits for.
   */
  hint(view, ui) {
    const state = view.state;
    if (state.turn !== view.you) {
      const name = ui.seatName(state.turn);
      return state.guessed_this_turn ? t("tadmur.hint.wait_guessed", { name }) : t("tadmur.hint.wait", { name });
    }
    const guess = ui.actions("guess").length > 0;
    let move;
    if (ui.actions("place").length) {
      if (guess) move = t("tadmur.hint.place_or_guess");
      else move = state.rows[view.you].empty === 1 ? t("tadmur.hint.place_last") : t("tadmur.hint.place");
    } else {
      move = guess ? t("tadmur.hint.pass_or_guess") : t("tadmur.hint.pass");
    }
    return state.guessed_this_turn ? `${t("tadmur.hint.guessed")} ${move}` : move;
  },

  turnSeat(view) {
    return view.state ? view.state.turn : null;
  },

  describe(event, said, ui) {
    switch (event.type) {
      case "placed": return said("log.tadmur.placed", { card: ui.short(event.card), count: event.empty });
      case "guessed": return said(event.correct ? "log.tadmur.guessed_right" : "log.tadmur.guessed_wrong",
        { rank: rankName(event.rank) });
      case "passed": return said("log.tadmur.passed");
      default: return null;
    }
  },

  scores(view, ui) {
    return scoreTable(ui, view.result.scores);
  },

  revealed() {
    return null; // both targets are face up on the rows once the game is over
  },
};
