"""The read side: what the API's routes and the web pages show, read from the search index and the catalogue's
repositories. Routes and pages both call these functions, and neither calls the other."""
