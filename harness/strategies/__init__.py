"""How a seat decides: scaffold definitions and one module per decision strategy, registered by name."""
