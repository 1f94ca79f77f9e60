// A page family's copy for offline use (cardsdb/pages/offline.py): a service worker whose scope is the path it is
// served from. Each page of that scope, and each file they load (scripts, styles), is fetched from the network
// first and the answer kept; without a connection the copy kept answers instead, so a page opened or reloaded
// offline shows again, its state coming from the device (localStorage). The API is never copied: a page keeps
// what it read itself, and says when it is old.
"use strict";

const CACHE = "{{ cache }}";
// Answers kept at most, the oldest put first out: the pages of the last games opened and the files they load.
const KEPT = {{ kept }};

self.addEventListener("install", () => self.skipWaiting());
// The page that registered the worker is served by it from its next request on, not only after a reload.
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// The page that registered the worker loaded itself and its files before the worker ran: it names them, to keep.
self.addEventListener("message", (event) => {
  const names = Array.isArray(event.data?.keep) ? event.data.keep.slice(0, KEPT) : [];
  const urls = names.map((name) => new URL(String(name), self.location.origin)).filter(copied);
  event.waitUntil(Promise.all(urls.map((url) => fromNetworkElseKept(new Request(url)).catch(() => null))));
});

// Whether an answer is one to keep: a page or file of this site read with GET, never the API.
function copied(url) {
  return url.origin === self.location.origin && !url.pathname.startsWith("/api/");
}

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET" || !copied(new URL(event.request.url))) return;
  event.respondWith(fromNetworkElseKept(event.request));
});

async function fromNetworkElseKept(request) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    if (response.ok) {
      await cache.put(request, response.clone());
      await trim(cache);
    }
    return response;
  } catch (error) {
    const kept = await cache.match(request, { ignoreVary: true });
    if (kept) return kept;
    throw error;
  }
}

async function trim(cache) {
  const keys = await cache.keys(); // in the order put, a page put again last
  for (const key of keys.slice(0, Math.max(0, keys.length - KEPT))) await cache.delete(key);
}
