#!/usr/bin/env node
'use strict';
require('../lib/launch.js').launch('@askcore/cli', 'askcore-mcp');
