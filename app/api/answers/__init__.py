"""How answers are written besides JSON: chat text and markdown, and charts."""
