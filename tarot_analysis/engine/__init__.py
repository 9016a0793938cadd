"""The game engine: deals played to the end under any preset, and scored."""
