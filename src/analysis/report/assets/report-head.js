window.__cptErrors=[];window.addEventListener('error',function(e){window.__cptErrors.push(String(e.message||e));});
