"""What many tests share: scripted dice, a table to play at, the import graph."""
