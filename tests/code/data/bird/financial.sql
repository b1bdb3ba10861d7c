-- A stand-in for BIRD's `financial` database: the tables and columns that the mined rows' queries read, under
-- BIRD's names, with a few invented rows (BIRD's databases, 1.4 GB, are in no repository reachable here).
CREATE TABLE district (district_id INTEGER PRIMARY KEY, A2 TEXT, A3 TEXT);
INSERT INTO district VALUES (1, 'Hl.m. Praha', 'Prague'), (2, 'Benesov', 'central Bohemia'), (3, 'Kolin', 'central Bohemia');
CREATE TABLE account (account_id INTEGER PRIMARY KEY, district_id INTEGER, frequency TEXT, date DATE);
INSERT INTO account VALUES (1, 1, 'POPLATEK MESICNE', '1993-01-01'), (2, 1, 'POPLATEK MESICNE', '1993-02-14'),
  (3, 2, 'POPLATEK TYDNE', '1994-05-02'), (4, 3, 'POPLATEK MESICNE', '1995-07-21'), (5, 1, 'POPLATEK PO OBRATU', '1996-03-03'),
  (6, 1, 'POPLATEK MESICNE', '1997-01-09');
CREATE TABLE loan (loan_id INTEGER PRIMARY KEY, account_id INTEGER, date DATE, amount INTEGER, duration INTEGER,
                   payments REAL, status TEXT);
INSERT INTO loan VALUES (1, 1, '1994-01-05', 80952, 24, 3373.0, 'A'), (2, 2, '1996-04-29', 30276, 12, 2523.0, 'C'),
  (3, 3, '1997-12-08', 96396, 12, 8033.0, 'C'), (4, 4, '1998-10-14', 165960, 36, 4610.0, 'D'),
  (5, 5, '1998-04-19', 52788, 12, 4399.0, 'C');
