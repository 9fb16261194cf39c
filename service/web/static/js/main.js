// The single page at `/`: the lobby; `?game=<id>[&seat=<n>]` a table; `?join=<id>` the join form of a friend's link.

import { initPage, showError } from "./page.js";
import { openJoin, openLobby } from "./lobby.js";
import { openTable } from "./table.js";

const main = document.querySelector("main");
try {
  await initPage();
  const params = new URLSearchParams(location.search);
  if (params.has("game")) await openTable(main, params.get("game"), params.get("seat"));
  else if (params.has("join")) await openJoin(main, params.get("join"));
  else await openLobby(main);
} catch (error) {
  showError(main, error);
}
