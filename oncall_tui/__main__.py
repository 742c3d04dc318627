"""``python -m oncall_tui``: the console script's entry point, Ctrl-C covered from the start."""

try:
    from oncall_tui.entry import main
except KeyboardInterrupt:  # pressed while even this tiny module was loading
    raise SystemExit(130) from None

raise SystemExit(main())
