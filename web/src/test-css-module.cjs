// jest (web project): a CSS module's class names are their own keys (`styles.task` is "task").
module.exports = new Proxy({}, { get: (_t, key) => (key === '__esModule' ? false : key) });
