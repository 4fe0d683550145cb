"use strict";
(function () {
  const frames = JSON.parse(document.getElementById("frames").textContent);
  const rows = Array.from(document.querySelectorAll("#episodes tbody tr"));
  const selects = Array.from(document.querySelectorAll("#filters select"));
  const shown = document.getElementById("shown");
  let refocus = null;  // the link an episode was opened from with the keyboard

  function applyFilters() {
    let count = 0;
    for (const row of rows) {
      const keep = selects.every((s) => !s.value || row.dataset[s.dataset.key] === s.value);
      row.hidden = !keep;
      count += keep ? 1 : 0;
    }
    shown.textContent = count + " of " + rows.length + " episodes";
    if (rows.some((row) => row.hidden && row.classList.contains("open"))) {
      history.replaceState(null, "", location.pathname + location.search);  // no hashchange
      openEpisode(null);  // its row filtered out: the episode goes with it
    }
  }

  function missing(img) {  // a screen's file is not beside the page: say which, not a broken icon
    const note = document.createElement("div");
    note.className = "missing";
    note.textContent = "screen file not found: " + decodeURIComponent(img.getAttribute("src")) +
      " (keep the page's screens folder beside it)";
    const marks = img.parentElement.querySelector("svg.marks");
    if (marks) marks.remove();
    img.replaceWith(note);
  }

  function openEpisode(index) {  // none (back to the bare page): every episode closed
    for (const other of document.querySelectorAll("section.episode")) other.hidden = true;
    for (const row of rows) row.classList.toggle("open", row.dataset.episode === String(index));
    const section = document.getElementById("episode-" + index);
    if (!section) return;
    for (const img of section.querySelectorAll("img[data-frame]")) {
      if (img.getAttribute("src")) continue;
      img.addEventListener("error", () => missing(img), { once: true });
      img.src = frames[img.dataset.frame];
    }
    section.hidden = false;
    section.scrollIntoView();
    if (refocus) refocus.focus({ preventScroll: true });  // Tab goes on to the next row
    refocus = null;
  }

  for (const select of selects) select.addEventListener("change", applyFilters);
  for (const row of rows) {
    row.addEventListener("click", (e) => {
      if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;  // a new tab's
      refocus = e.detail === 0 ? e.target.closest("a") : null;  // Enter on the row's link
      const hash = "#episode-" + row.dataset.episode;
      if (location.hash === hash) openEpisode(row.dataset.episode);  // no hashchange: open again
      else location.hash = hash;
    });
  }
  window.addEventListener("hashchange", () => openEpisode(location.hash.replace("#episode-", "")));
  applyFilters();
  if (location.hash.startsWith("#episode-")) openEpisode(location.hash.replace("#episode-", ""));
})();
