"""Task synthesis (AutoForge-style): tool graph -> walks -> blueprints -> instantiated, verified tasks."""
