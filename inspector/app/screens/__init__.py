"""One screen per drill-down level: runs → overview → tasks → task → diagnostics."""
