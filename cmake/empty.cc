// Lets a component library exist before it has sources of its own.
