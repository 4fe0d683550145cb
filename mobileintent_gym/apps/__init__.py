"""The simulated apps: one package per app, each a plugin listed in :mod:`.registry`.

An app's package holds everything of that app: its screens and state, its built-in content
(one data file per record pool), its PAIR contexts, its resource-id and route names, its
task templates and its launcher icon. Nothing outside the package names the app; the
phone, the PAIR pipeline and the tasks find it through the registry.
"""
