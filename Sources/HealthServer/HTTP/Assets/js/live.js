// One Server-Sent Events stream for the whole page; pages subscribe to the events they show.
const listeners = { samples: new Set(), authorization_requests: new Set(), ready: new Set() };
let source = null;

export function subscribe(event, listener) {
  listeners[event].add(listener);
  return () => listeners[event].delete(listener);
}

function deliver(event) {
  return (message) => {
    const data = JSON.parse(message.data || "{}");
    listeners[event].forEach((listener) => listener(data));
  };
}

/**
 * Opens the stream. EventSource reconnects by itself after a drop, and each `ready` after the
 * first means events may have been missed: `onResume` redraws. `onEnded` runs when the server ended
 * the stream for good (an `error` event, or a refused reconnect: the session is gone).
 */
export function connect({ onResume, onEnded }) {
  if (source) return;
  const stream = new EventSource("/api/events");
  source = stream;
  let readies = 0;
  for (const event of Object.keys(listeners)) stream.addEventListener(event, deliver(event));
  stream.addEventListener("ready", () => {
    document.body.classList.add("live");
    if (readies++ > 0) onResume();
  });
  stream.addEventListener("error", (event) => {
    document.body.classList.remove("live");
    if (event.data || stream.readyState === EventSource.CLOSED) {
      stream.close();
      if (source === stream) source = null;
      onEnded();
    }
  });
}

export function disconnect() {
  if (source) source.close();
  source = null;
  document.body.classList.remove("live");
}
