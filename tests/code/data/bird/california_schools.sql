-- A stand-in for BIRD's `california_schools` database: the tables and columns that the mined rows' queries read,
-- under BIRD's names, with a few invented rows (each percentage is its count over its enrollment, as in BIRD).
CREATE TABLE frpm (CDSCode TEXT PRIMARY KEY, `County Name` TEXT, `School Name` TEXT, `Educational Option Type` TEXT,
  `Enrollment (K-12)` REAL, `Free Meal Count (K-12)` REAL, `Percent (%) Eligible Free (K-12)` REAL,
  `Enrollment (Ages 5-17)` REAL, `Free Meal Count (Ages 5-17)` REAL, `Percent (%) Eligible Free (Ages 5-17)` REAL);
INSERT INTO frpm VALUES
  ('01100170109835', 'Alameda', 'FAME Public Charter', 'Traditional', 240, 186, 0.775, 230, 115, 0.5),
  ('01100170112607', 'Alameda', 'Envision Academy', 'Traditional', 268, 134, 0.5, 256, 64, 0.25),
  ('19647330100001', 'Los Angeles', 'Pioneer High', 'Continuation School', 400, 300, 0.75, 300, 90, 0.3),
  ('19647330100002', 'Los Angeles', 'Vista High', 'Continuation School', 260, 52, 0.2, 250, 50, 0.2),
  ('10621661030030', 'Fresno', 'Cambridge High', 'Continuation School', 80, 40, 0.5, 80, 40, 0.5),
  ('10621661030031', 'Fresno', 'Sierra High', 'Continuation School', 64, 48, 0.75, 60, 45, 0.75);
CREATE TABLE schools (CDSCode TEXT PRIMARY KEY, County TEXT, StatusType TEXT);
INSERT INTO schools VALUES ('01100170109835', 'Alameda', 'Active'), ('01100170112607', 'Alameda', 'Active'),
  ('19647330100001', 'Los Angeles', 'Active'), ('19647330100002', 'Los Angeles', 'Active'),
  ('10621661030030', 'Fresno', 'Active'), ('10621661030031', 'Fresno', 'Closed');
