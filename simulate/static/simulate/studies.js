// The study form shows the fields of the chosen kind only, and sends only those: a field another kind reads is
// disabled while it hides, so what it still holds is not refused as an input this kind leaves out. Without
// scripts every field shows and is sent, and the server says which one the chosen kind leaves out.
(function () {
  "use strict";
  function showKind(form) {
    var select = form.querySelector("select[name='kind']");
    if (!select) { return; }
    form.querySelectorAll("[data-kinds]").forEach(function (part) {
      var hidden = part.getAttribute("data-kinds").split(" ").indexOf(select.value) === -1;
      part.hidden = hidden;
      if (part.tagName === "FIELDSET") {
        part.disabled = hidden;
      } else {
        part.querySelectorAll("input, select, textarea").forEach(function (field) { field.disabled = hidden; });
      }
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
