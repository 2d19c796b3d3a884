"""The table page's files: `index.html` and its `assets/` (plain ES modules and CSS, no build
step), served by `app.api.table`."""
