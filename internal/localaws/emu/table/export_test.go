package table

// TopLevelRemoves exposes topLevelRemoves to the external tests.
var TopLevelRemoves = topLevelRemoves
