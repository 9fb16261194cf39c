// One renderer per game: {deck, render(view, ui), hint(view, ui), describe(event, said, ui), turnSeat(view), scores,
// revealed}. `hint` is the table's one sentence of what to do now (table.js `hintLine`).

import durak from "./durak.js";
import svoiKoziri from "./svoi_koziri.js";
import tadmur from "./tadmur.js";
import talmut from "./talmut.js";

export const RENDERERS = { durak, svoi_koziri: svoiKoziri, tadmur, talmut };
