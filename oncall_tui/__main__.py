from oncall_tui.cli import main

raise SystemExit(main())
