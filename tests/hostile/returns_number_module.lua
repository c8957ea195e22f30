-- expect: a script must return a table of functions
return 42
