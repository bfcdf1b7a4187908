"""What a change to the surveyed library selects: which changed files differ in code
(`code_change`), which of their functions changed (`function_split`), and which cases enter
none of them (`function_change`). The engine runs each as `python -m capmap.selection.NAME`."""
