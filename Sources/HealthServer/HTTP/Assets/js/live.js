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

/** Opens the stream (EventSource reconnects by itself after a drop; `ready` then says to reload). */
export function connect() {
  if (source) return;
  source = new EventSource("/api/events");
  for (const event of Object.keys(listeners)) source.addEventListener(event, deliver(event));
  source.addEventListener("open", () => document.body.classList.add("live"));
  source.addEventListener("error", () => document.body.classList.remove("live"));
}

export function disconnect() {
  if (source) source.close();
  source = null;
  document.body.classList.remove("live");
}
