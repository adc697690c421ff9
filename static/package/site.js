/* svc pages: progressive enhancement only; every page works without this file. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  /* Tabs (WAI-ARIA tabs pattern). Without JavaScript they are plain ?tab= links;
     here they switch in place and update the address with history.replaceState,
     which is also how the analytics script counts tab views. */
  function setUpTabs(list) {
    var tabs = Array.prototype.slice.call(list.querySelectorAll("a[data-tab]"));
    if (!tabs.length) return;
    list.setAttribute("role", "tablist");
    list.setAttribute("aria-label", list.getAttribute("data-tabs-label") || "");

    function panelOf(tab) {
      return document.getElementById("panel-" + tab.getAttribute("data-tab"));
    }

    function select(tab, moveFocus) {
      tabs.forEach(function (other) {
        var selected = other === tab;
        other.setAttribute("aria-selected", selected ? "true" : "false");
        other.setAttribute("tabindex", selected ? "0" : "-1");
        var panel = panelOf(other);
        if (panel) panel.hidden = !selected;
      });
      if (moveFocus) tab.focus();
    }

    tabs.forEach(function (tab) {
      var panel = panelOf(tab);
      tab.setAttribute("role", "tab");
      tab.removeAttribute("aria-current");
      if (panel) {
        tab.setAttribute("aria-controls", panel.id);
        panel.setAttribute("role", "tabpanel");
        panel.setAttribute("tabindex", "0");
      }
      tab.addEventListener("click", function (event) {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        select(tab, false);
        history.replaceState(history.state, "", tab.href);
      });
      tab.addEventListener("keydown", function (event) {
        var index = tabs.indexOf(tab);
        var next = null;
        if (event.key === "ArrowRight") next = tabs[(index + 1) % tabs.length];
        else if (event.key === "ArrowLeft") next = tabs[(index - 1 + tabs.length) % tabs.length];
        else if (event.key === "Home") next = tabs[0];
        else if (event.key === "End") next = tabs[tabs.length - 1];
        else if (event.key === " ") next = tab;
        if (!next) return;
        event.preventDefault();
        select(next, true);
        history.replaceState(history.state, "", next.href);
      });
    });
    var current = tabs.filter(function (tab) {
      var panel = panelOf(tab);
      return panel && !panel.hidden;
    })[0] || tabs[0];
    select(current, false);
  }

  /* Copy buttons: copy the text (or link) of the element named by data-copy,
     and say so next to the button. */
  /* The page says its messages in its language (data-* on <body>, from the translation catalogues). */
  function pageMessage(name) {
    return document.body.getAttribute("data-message-" + name) || "";
  }

  function setUpCopy(button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    var status = button.nextElementSibling && button.nextElementSibling.classList.contains("copy-status")
      ? button.nextElementSibling : null;
    if (!source) return;
    var label = button.textContent;
    var timer = null;
    function report(message, ok) {
      if (status) status.textContent = message;
      button.textContent = ok ? pageMessage("copied") : label;
      clearTimeout(timer);
      timer = setTimeout(function () {
        button.textContent = label;
        if (status) status.textContent = "";
      }, 4000);
    }
    function selectSource() {
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      var text = (source.getAttribute("href") || source.textContent).trim();
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(
          function () { report(pageMessage("copied-status"), true); },
          function () { selectSource(); report(pageMessage("selected-status"), false); }
        );
      } else {
        selectSource();
        report(pageMessage("selected-status"), false);
      }
    });
  }

  /* Filters and sort order apply as soon as they change. */
  function setUpAutoSubmit(control) {
    control.addEventListener("change", function () {
      var form = control.form;
      if (!form) return;
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    });
  }

  /* Leave empty fields out of the address (?q=&sort= says nothing). */
  function setUpCleanSubmit(form) {
    var emptied = [];
    form.addEventListener("submit", function () {
      Array.prototype.forEach.call(form.elements, function (field) {
        if (field.name && !field.disabled && field.value === "" && field.type !== "checkbox") {
          field.disabled = true;
          emptied.push(field);
        }
      });
    });
    window.addEventListener("pageshow", function () {
      emptied.forEach(function (field) { field.disabled = false; });
      emptied = [];
    });
  }

  function each(selector, setUp) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), setUp);
  }
  each("[data-tabs]", setUpTabs);
  each("button[data-copy]", setUpCopy);
  each("[data-autosubmit]", setUpAutoSubmit);
  each("form[role=search]", setUpCleanSubmit);
})();
