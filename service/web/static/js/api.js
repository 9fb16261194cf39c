// The Cardroom HTTP API (docs/API.md) and nothing else: every request the page makes goes through this module,
// so the page proves that a front end needs no more than any other client gets.

export class ApiError extends Error {
  /** A 4xx/5xx answer: `status`, the stable `error` code and the server's human `message`. */
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.error = body && body.error;
  }
}

async function request(method, path, { body, token, headers = {}, signal, cache } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers }, signal, cache };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  if (token) init.headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, init);
  if (response.status === 304) return null; // a long-poll's "nothing yet"
  const type = response.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await response.json() : null;
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

const game = (id) => `/v1/games/${encodeURIComponent(id)}`;
const ticket = (id) => `/v1/matches/${encodeURIComponent(id)}`;

export const api = {
  rules: () => request("GET", "/v1/rules"),
  lobby: (status) => request("GET", `/v1/games?status=${status}&limit=50`),
  create: (body) => request("POST", "/v1/games", { body }),
  join: (gameId, name) => request("POST", `${game(gameId)}/seats`, { body: { name } }),
  view: (gameId, token) => request("GET", game(gameId), { token }),
  /** Where a finished game's export is (docs/api-additions.md): `json`, or `text` (Durak's move list). */
  exportUrl: (gameId, format) => `${game(gameId)}/export${format === "text" ? "?format=text" : ""}`,
  /**
   * The view with fresh presence (`last_seen`, `claim`), which moves without a new version: never from the
   * browser's cache, whose revalidation would get a 304 for the same version (the ETag) and give back the old body.
   */
  presence: (gameId, token) => request("GET", game(gameId), { token, cache: "no-store" }),
  events: (gameId, token, after) => request("GET", `${game(gameId)}/events?after=${after}`, { token }),
  /**
   * Play one of the view's `legal_actions`, verbatim. The Idempotency-Key names the version and the action's
   * place in the list, so a double click is applied once (API.md "Actions and errors").
   */
  play: (gameId, token, action, key) =>
    request("POST", `${game(gameId)}/actions`, { body: action, token, headers: { "Idempotency-Key": key } }),
  /** Quick match (docs/api-additions.md): a ticket, read with a long-poll of `wait` seconds, cancelled. */
  match: (body) => request("POST", "/v1/matches", { body }),
  ticket: (ticketId, token, wait, signal) => request("GET", `${ticket(ticketId)}?wait=${wait}`, { token, signal }),
  cancelTicket: (ticketId, token) => request("DELETE", ticket(ticketId), { token }),
  /** Claim against the absent seat the game waits for (docs/api-additions.md "Presence and claims"). */
  claim: (gameId, token) => request("POST", `${game(gameId)}/claim`, { token }),
};

// Tokens: one per seat, kept in this browser only (never in a link), under the game's id. A browser may hold two
// seats of one game (a player trying the join link in a second window): the table's URL names the seat.
const SEATS_KEY = (gameId) => `cardroom.seats.${gameId}`;
const SETUP_KEY = (gameId) => `cardroom.setup.${gameId}`;

export const seats = {
  /** `{seat: token}` for every seat of `gameId` this browser holds. */
  all(gameId) {
    try {
      return JSON.parse(localStorage.getItem(SEATS_KEY(gameId))) || {};
    } catch {
      return {};
    }
  },
  save(gameId, seat, token) {
    localStorage.setItem(SEATS_KEY(gameId), JSON.stringify({ ...seats.all(gameId), [seat]: token }));
  },
  /** The games this browser holds a seat of, newest first is not known: in storage order. */
  games() {
    return Object.keys(localStorage)
      .filter((key) => key.startsWith("cardroom.seats."))
      .map((key) => key.slice("cardroom.seats.".length));
  },
  /** The create request a game was made with, for "Play again". */
  setup: (gameId) => JSON.parse(localStorage.getItem(SETUP_KEY(gameId)) || "null"),
  saveSetup: (gameId, body) => localStorage.setItem(SETUP_KEY(gameId), JSON.stringify(body)),
};

/**
 * Follow a game: `onView(view)` for every new version, through the Server-Sent Events stream (read with fetch,
 * because EventSource cannot send the Authorization header), reconnecting with Last-Event-ID when it ends early;
 * the long-poll where the browser cannot read a response as a stream. Returns a function that stops it.
 */
export function follow(gameId, token, version, onView) {
  const controller = new AbortController();
  let last = version;
  let finished = false;
  const deliver = (view) => {
    if (view.version <= last) return;
    last = view.version;
    finished = view.status === "finished";
    onView(view);
  };
  (async () => {
    let retry = 1000;
    while (!finished && !controller.signal.aborted) {
      try {
        const headers = { Accept: "text/event-stream", "Last-Event-ID": String(last) };
        if (token) headers.Authorization = `Bearer ${token}`;
        const response = await fetch(`${game(gameId)}/stream`, { headers, signal: controller.signal });
        if (response.ok && response.body) {
          retry = await readEvents(response.body, deliver, retry);
        } else if (response.ok) {
          await longPoll(gameId, token, () => last, deliver, () => finished, controller.signal);
        } else if (response.status === 401 || response.status === 404) {
          return; // a token of no seat, or a game that expired: nothing will ever come
        } else {
          retry = 1000 * Number(response.headers.get("Retry-After") || 1);
        }
      } catch {
        if (controller.signal.aborted) return; // the table was left; otherwise the network failed: retry
      }
      // the stream ended without the finished view (a server restarting drains its streams): come back as the
      // server's `retry:` asks
      if (!finished) await new Promise((resolve) => setTimeout(resolve, retry));
    }
  })();
  return () => controller.abort();
}

/** Read an SSE body: `deliver` each `view` event's JSON; returns the last `retry:` the server asked for. */
async function readEvents(body, deliver, retry) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return retry;
    buffer += value;
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      const fields = { data: [] };
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(":")) continue; // keep-alive comment
        const colon = line.indexOf(":");
        const name = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (name === "data") fields.data.push(text);
        else fields[name] = text;
      }
      if (fields.retry) retry = Number(fields.retry) || retry;
      if ((fields.event || "message") === "view" && fields.data.length) deliver(JSON.parse(fields.data.join("\n")));
    }
  }
}

async function longPoll(gameId, token, last, deliver, finished, signal) {
  while (!finished() && !signal.aborted) {
    const path = `${game(gameId)}?after_version=${last()}&wait=30`;
    const view = await request("GET", path, { token, signal });
    if (view) deliver(view);
  }
}
