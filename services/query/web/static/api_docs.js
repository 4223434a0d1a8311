// /docs: Swagger UI over the API's OpenAPI document, as FastAPI's own page sets it up, from a file rather than an
// inline script (the Content-Security-Policy runs scripts from this site only).
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  if (!window.SwaggerUIBundle || !root) return;
  window.ui = window.SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    presets: [window.SwaggerUIBundle.presets.apis, window.SwaggerUIBundle.SwaggerUIStandalonePreset],
  });
});
