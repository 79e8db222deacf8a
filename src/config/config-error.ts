// A setting that cannot be used: the core stops at startup with this message, naming the setting.
export class ConfigError extends Error {}
