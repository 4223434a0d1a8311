// Formulas in titles and abstracts ($…$, \(…\), $$…$$, \[…\]) rendered with KaTeX, as arXiv's pages show them.
// Only elements of class "tex" are read. A formula KaTeX cannot parse stays as the source wrote it (auto-render
// puts the source text back when KaTeX throws a parse error); without JavaScript every formula reads as its source.
document.addEventListener("DOMContentLoaded", function () {
  if (!window.renderMathInElement) return;
  document.querySelectorAll(".tex").forEach(function (element) {
    window.renderMathInElement(element, {
      delimiters: [
        { left: "$$", right: "$$", display: true },
        { left: "\\[", right: "\\]", display: true },
        { left: "$", right: "$", display: false },
        { left: "\\(", right: "\\)", display: false },
      ],
      throwOnError: true,
      errorCallback: function (message, error) {
        console.warn(message, error);
      },
    });
  });
});
