// The study form shows the fields of the chosen kind only; without scripts every field shows.
(function () {
  "use strict";
  function showKind(form) {
    var select = form.querySelector("select[name='kind']");
    if (!select) { return; }
    form.querySelectorAll("[data-kinds]").forEach(function (part) {
      part.hidden = part.getAttribute("data-kinds").split(" ").indexOf(select.value) === -1;
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("form.study-form").forEach(function (form) {
      showKind(form);
      form.addEventListener("change", function (event) {
        if (event.target.name === "kind") { showKind(form); }
      });
    });
  });
})();
