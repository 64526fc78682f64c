/** The dashboard over HTTP on a real SQLite store (the suite: dashboard-suite.ts). */
import { useHttpApps } from '../http/http-harness.js';
import { dashboardSuite } from './dashboard-suite.js';

dashboardSuite(useHttpApps());
