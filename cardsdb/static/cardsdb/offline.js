// Registers the page family's service worker (cardsdb/pages/offline.py), named by this script tag's data-worker,
// so that the page opens again without a connection. The page and its files were loaded before the worker ran:
// it is told their addresses, to keep them too.
"use strict";

(() => {
  const worker = document.currentScript?.dataset.worker;
  if (!worker || !("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(worker).then(() => navigator.serviceWorker.ready).then((registration) => {
    const files = [...document.querySelectorAll("script[src], link[rel=stylesheet]")].map((node) => node.src || node.href);
    registration.active.postMessage({ keep: [window.location.pathname, ...files] });
  }).catch(() => { /* no worker: the page works while it is open */ });
})();
