"""Cards and card transactions (§2 Card, CardTransaction; §4) as the suite reaches them."""
