-- The service's database user (the Temporal server uses root to create its own schemas).
GRANT ALL PRIVILEGES ON payments.* TO 'payments'@'%';
