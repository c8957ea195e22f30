-- expect: the returned table has no decide(self, world) function
return { init = function() end }
