// The server's type catalog, fetched once per sign-in: kinds, aggregation, display units and value names.
import { get } from "./api.js";
import { useNames } from "./format.js";

let byName = null;

export async function loadCatalog() {
  if (byName) return byName;
  const answer = await get("/api/catalog");
  useNames(answer);
  byName = new Map();
  for (const entry of answer.types) {
    byName.set(entry.type, entry);
    byName.set(entry.short_name.toLowerCase(), entry);
  }
  return byName;
}

/** The catalog entry for a full identifier or a short name (any case); undefined when unknown. */
export async function typeEntry(name) {
  const catalog = await loadCatalog();
  return catalog.get(name) || catalog.get(String(name).toLowerCase());
}

export function forgetCatalog() {
  byName = null;
}
