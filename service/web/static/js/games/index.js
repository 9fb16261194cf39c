// One renderer per game: {deck, render(view, ui), describe(event, said, ui), turnSeat(view), scores, revealed}.

import durak from "./durak.js";
import svoiKoziri from "./svoi_koziri.js";
import tadmur from "./tadmur.js";
import talmut from "./talmut.js";

export const RENDERERS = { durak, svoi_koziri: svoiKoziri, tadmur, talmut };
