"""Preset patterns, one ``NAME.sfl`` file each (installed as ``sparseflash.presets``)."""
